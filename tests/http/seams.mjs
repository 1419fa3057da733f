// seams.mjs: the seam measure of the tile tests (tiles.test.mjs,
// period.test.mjs) on decoded PNG pixels.

// Mean |second difference| across the join of tiles a and b (b to the right
// of a when horizontal, else below it) against the same measure inside:
// along each line crossing the join, a's last three pixels then b's first
// three, in one colour channel. A seamless join has seam close to inner.
export function seamCheck(a, b, W, horizontal, channel) {
  const at = (png, i, j) => png.data[4 * (j * W + i) + channel];
  let seam = 0, inner = 0;
  for (let t = 0; t < W; t++) {
    const line = horizontal
      ? [at(a, W - 3, t), at(a, W - 2, t), at(a, W - 1, t), at(b, 0, t), at(b, 1, t), at(b, 2, t)]
      : [at(a, t, W - 3), at(a, t, W - 2), at(a, t, W - 1), at(b, t, 0), at(b, t, 1), at(b, t, 2)];
    const d2 = (k) => Math.abs(line[k - 1] - 2 * line[k] + line[k + 1]);
    seam += d2(2) + d2(3);
    inner += d2(1) + d2(4);
  }
  return { seam: seam / (2 * W), inner: inner / (2 * W) };
}
