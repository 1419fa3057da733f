#!/usr/bin/python3
# readers.py: reads a file with Debian's numpy or Pillow (readers nobody here
# wrote) and prints what it found as JSON, for tests/http/heights.test.mjs and
# readers.mjs (cellular.test.mjs, seeds.test.mjs).
#   readers.py npy FILE   -> {"shape": [...], "dtype": "float32", "data": [...]} (float32 widened exactly)
#   readers.py pil FILE   -> {"mode": "I;16", "size": [w, h], "data": [...]} (row-major samples or [r, g, b])
import io
import json
import sys

kind, path = sys.argv[1], sys.argv[2]
if kind == 'npy':
    import numpy as np
    with open(path, 'rb') as f:
        a = np.load(io.BytesIO(f.read()))
    print(json.dumps({'shape': list(a.shape), 'dtype': str(a.dtype), 'fortran': bool(np.isfortran(a)),
                      'data': a.astype('<f8').ravel().tolist()}))
elif kind == 'pil':
    from PIL import Image
    im = Image.open(path)
    data = [list(p) if isinstance(p, tuple) else p for p in im.getdata()]
    print(json.dumps({'mode': im.mode, 'size': list(im.size), 'data': data}))
else:
    sys.exit('usage: readers.py npy|pil FILE')
