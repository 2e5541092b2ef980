"""absl-style flags through tf.flags: required flags, enums, lists, multi-strings."""
import tensorflow as tf

tf.flags.DEFINE_string("output", None, "where to write")
tf.flags.DEFINE_enum("mode", "train", ["train", "eval"], "what to do")
tf.flags.DEFINE_list("layers", "8,4", "layer sizes")
tf.flags.DEFINE_multi_string("tag", [], "tags")
tf.flags.DEFINE_boolean("verbose", False, "talk")
tf.flags.DEFINE_bool("dry", True, "dry run")
tf.flags.DEFINE_float("lr", 0.1, "learning rate")
tf.flags.mark_flag_as_required("output")
FLAGS = tf.flags.FLAGS


def main(argv):
    print("output=%s mode=%s layers=%s tag=%s verbose=%s dry=%s lr=%s rest=%s" % (
        FLAGS.output, FLAGS.mode, FLAGS.layers, FLAGS.tag, FLAGS.verbose, FLAGS.dry, FLAGS.lr,
        argv[1:]))
    return 3 if FLAGS.mode == "eval" else 0


if __name__ == "__main__":
    tf.app.run(main)
