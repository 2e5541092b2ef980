"""tf.gfile / tf.io.gfile and tf.compat text helpers, as data-preparation scripts use them."""
import os
import tensorflow as tf

out = "prepared"
if not tf.gfile.Exists(out):
    tf.gfile.MakeDirs(os.path.join(out, "sub"))
with tf.gfile.GFile(os.path.join(out, "vocab.txt"), "w") as f:
    for word in ["alpha", "beta", "gamma"]:
        f.write(tf.compat.as_text(word) + "\n")
with tf.gfile.Open(os.path.join(out, "vocab.txt")) as f:
    words = [line.strip() for line in f]
with tf.io.gfile.GFile(os.path.join(out, "blob.bin"), "wb") as f:
    f.write(tf.compat.as_bytes("\u00e9t\u00e9"))
tf.gfile.Copy(os.path.join(out, "vocab.txt"), os.path.join(out, "sub", "copy.txt"))
tf.io.gfile.rename(os.path.join(out, "sub", "copy.txt"), os.path.join(out, "sub", "moved.txt"))
print("words", words)
print("bytes", tf.gfile.GFile(os.path.join(out, "blob.bin"), "rb").read())
print("glob", [os.path.basename(p) for p in tf.gfile.Glob(os.path.join(out, "*.txt"))])
print("list", tf.gfile.ListDirectory(out), tf.io.gfile.listdir(os.path.join(out, "sub")))
print("isdir", tf.gfile.IsDirectory(os.path.join(out, "sub")), "size",
      tf.gfile.Stat(os.path.join(out, "vocab.txt")).length)
print("walk", [(os.path.relpath(d, out), sorted(f)) for d, _, f in tf.gfile.Walk(out)])
try:
    tf.gfile.GFile(os.path.join(out, "missing.txt")).read()
except tf.errors.NotFoundError as e:
    print("not found:", type(e).__name__)
print("as_str_any", tf.compat.as_str_any(b"x"), tf.compat.as_str_any(3))
tf.gfile.Remove(os.path.join(out, "blob.bin"))
print("exists after remove", tf.io.gfile.exists(os.path.join(out, "blob.bin")))
