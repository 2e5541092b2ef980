"""``tf.graph_util``: freezing a graph for inference.

``convert_variables_to_constants(sess, graph_def, output_node_names)`` keeps the nodes
the outputs need (``extract_sub_graph``) and replaces each ``VariableV2`` among them by
a ``Const`` holding its current value in ``sess``, so the result (written with
``write_graph(..., as_text=False)``) runs without a checkpoint, in TF or here.
"""
from estimator_npu.engine import graph_def as gdef
from estimator_npu.engine import tf_protos as pb
from estimator_npu.utils import logging


def _node_name(name):
    return name[1:] if name.startswith("^") else name.split(":")[0]


def extract_sub_graph(graph_def, dest_nodes):
    """The ``GraphDef`` of the nodes ``dest_nodes`` need (original order kept).

    Raises:
        TypeError: ``graph_def`` is not a ``GraphDef`` or ``dest_nodes`` a name list.
        AssertionError: a destination node is not in the graph.
    """
    if not isinstance(graph_def, pb.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto.")
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be a list.")
    by_name = {n.name: n for n in graph_def.node}
    for d in dest_nodes:
        assert _node_name(d) in by_name, f"{d} is not in graph"
    keep, stack = set(), [_node_name(d) for d in dest_nodes]
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        keep.add(name)
        stack.extend(_node_name(i) for i in by_name[name].input)
    out = pb.GraphDef()
    out.versions.CopyFrom(graph_def.versions)
    out.node.extend(n for n in graph_def.node if n.name in keep)
    return out


def convert_variables_to_constants(sess, input_graph_def, output_node_names,
                                   variable_names_whitelist=None,
                                   variable_names_blacklist=None):
    """A copy of ``input_graph_def`` cut to ``output_node_names`` with its variables
    replaced by constants of their values in ``sess``."""
    sub = extract_sub_graph(input_graph_def, output_node_names)
    names = [n.name for n in sub.node if n.op in ("VariableV2", "Variable") and
             (variable_names_whitelist is None or n.name in variable_names_whitelist) and
             (variable_names_blacklist is None or n.name not in variable_names_blacklist)]
    values = dict(zip(names, sess.run([n + ":0" for n in names]))) if names else {}
    out = pb.GraphDef()
    out.versions.CopyFrom(sub.versions)
    for n in sub.node:
        if n.name in values:
            c = out.node.add(name=n.name, op="Const")
            c.attr["dtype"].CopyFrom(n.attr["dtype"])
            c.attr["value"].tensor.CopyFrom(gdef.make_tensor_proto(values[n.name]))
        elif n.op == "Identity" and n.input and _node_name(n.input[0]) in values:
            c = out.node.add()
            c.CopyFrom(n)
            c.attr.pop("_class", None)
        else:
            out.node.add().CopyFrom(n)
    logging.info("Froze %d variables.", len(values))
    logging.info("Converted %d variables to const ops.", len(values))
    return out


def remove_training_nodes(input_graph, protected_nodes=None):
    """An inference ``GraphDef`` without ``CheckNumerics`` nodes and with ``Identity``
    nodes spliced out (their consumers read the Identity's input instead), as TF1's does.

    Kept: nodes in ``protected_nodes``, Identities that have control inputs and those that
    are a control input of another node (removing either could change what runs first).
    """
    if not isinstance(input_graph, pb.GraphDef):
        raise TypeError(f"remove_training_nodes: input_graph must be a GraphDef, got "
                        f"{type(input_graph).__name__}")
    if isinstance(protected_nodes, str):
        raise TypeError("remove_training_nodes: protected_nodes must be a list of node "
                        "names, got a string")
    protected = set(protected_nodes or ())
    dropped = {n.name for n in input_graph.node
               if n.op == "CheckNumerics" and n.name not in protected}
    nodes = [n for n in input_graph.node if n.name not in dropped]
    controlled, control_sources = set(), set()
    for n in nodes:
        for i in n.input:
            if i.startswith("^"):
                control_sources.add(i[1:])
                controlled.add(n.name)
    splice = {n.name: n.input[0] for n in nodes
              if n.op == "Identity" and n.input and n.name not in protected
              and n.name not in controlled and n.name not in control_sources}
    out = pb.GraphDef()
    out.versions.CopyFrom(input_graph.versions)
    for n in nodes:
        if n.name in splice:
            continue
        new = out.node.add()
        new.CopyFrom(n)
        del new.input[:]
        for i in n.input:
            if _node_name(i) in dropped:
                continue
            control = i.startswith("^")
            while True:
                name = _node_name(i)
                if name not in splice or not control and i not in (name, name + ":0"):
                    break
                i = "^" + _node_name(splice[name]) if control else splice[name]
            new.input.append(i)
    return out


__all__ = ["convert_variables_to_constants", "extract_sub_graph", "remove_training_nodes"]
