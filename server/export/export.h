/* export.h: `noisetile export` (a field's tiles over a zoom range and a
 * region, rendered on every core into MBTiles, PMTiles or a z/x/y directory;
 * progress, resumption, shards) and `noisetile merge` (shard archives into
 * one). The tiles are the daemon's bytes for the same URL: both call
 * render_tile_png with the options query_parse gives. */
#ifndef EXPORT_H
#define EXPORT_H

/* The subcommands; argv[0] is the subcommand's name. Return the process exit
 * status: 0 done, 2 bad usage, 1 failure, 128+signal when interrupted (the
 * output then stays valid and the same command resumes). */
int export_main(int argc, char **argv);
int export_merge_main(int argc, char **argv);

#endif
