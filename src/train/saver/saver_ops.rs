//! The `save/` subgraph that `tf.train.Saver()` adds to a graph (formats.md §5.3), so an
//! exported meta graph carries a working `SaverDef`. [`super::Saver::as_saver_def`] adds it
//! the first time a saver needs it (for a `.meta`).

use crate::error::Result;
use crate::format::proto::SaverDef;
use crate::graph::{AttrValue, Graph, Operation, Variable};
use crate::ops::{self, io_ops::string_vector};
use crate::tensor::{DType, Shape, Tensor};

/// Adds TensorFlow's V2 saver ops for `vars` (checkpoint name → variable, sorted by name)
/// under a new `save` name scope (`save_1` when taken) and returns their `SaverDef`:
/// `save/Const` (the filename, fed with the checkpoint prefix), `save/SaveV2`,
/// `save/control_dependency`, `save/RestoreV2`, one `save/Assign*` per variable and
/// `save/restore_all`. As TensorFlow, a resource variable is saved from its snapshot
/// (`v/Read/ReadVariableOp`) and restored by `save/Identity[_k]` and
/// `save/AssignVariableOp[_k]` instead of `save/Assign[_k]`. The `SaverDef` has TensorFlow's
/// defaults (`max_to_keep` 5, `keep_checkpoint_every_n_hours` 10000, not sharded, V2).
///
/// A [`Saver`](super::Saver) calls this itself ([`Saver::as_saver_def`](super::Saver::as_saver_def),
/// and [`Saver::save`](super::Saver::save) for the `.meta`); call it directly only to build a meta
/// graph by hand. Errors: as the ops added.
pub fn add_saver_ops(graph: &Graph, vars: &[(String, Variable)]) -> Result<SaverDef> {
    let s = graph.scope().name_scope("save");
    // helper ops go in their op's name scope (`save/filename/input`, then `save/filename`)
    let (filename_op, filename_scope) = s.op_scope("filename");
    let model = ops::constant(&filename_scope.named("input"), Tensor::strings(&[], vec![b"model".to_vec()])?)?;
    let filename = ops::placeholder_with_default(&filename_op, &model, Shape::scalar())?;
    let prefix = ops::placeholder_with_default(&s.named("Const"), &filename, Shape::scalar())?;
    let names: Vec<&str> = vars.iter().map(|(n, _)| n.as_str()).collect();
    let empty = vec![""; names.len()];
    let dtype_list: Vec<DType> = vars.iter().map(|(_, v)| v.dtype()).collect();
    let (save_op, save_scope) = s.op_scope("SaveV2");
    let save_names = ops::constant(&save_scope.named("tensor_names"), string_vector(&names)?)?;
    let save_slices = ops::constant(&save_scope.named("shape_and_slices"), string_vector(&empty)?)?;
    let mut save = save_op.op("SaveV2", "SaveV2").input(&prefix).input(&save_names).input(&save_slices);
    for (_, v) in vars {
        save = save.input(&if v.is_resource() { v.value().clone() } else { v.reference() });
    }
    let save = save.attr("dtypes", AttrValue::ListType(dtype_list.clone())).build()?;
    let control = s
        .named("control_dependency")
        .op("Identity", "Identity")
        .input(&prefix)
        .control_input(&save)
        .attr("T", DType::String)
        .attr("_class", AttrValue::colocation(&prefix.op().name()))
        .build()?;
    let (restore_op, restore_scope) = s.op_scope("RestoreV2");
    let restore = ops::io_ops::restore_v2(&restore_op, &restore_scope, &prefix, &names, &dtype_list)?;
    let mut assigns: Vec<Operation> = Vec::with_capacity(vars.len());
    for (i, (_, v)) in vars.iter().enumerate() {
        if v.is_resource() {
            let value = s.op("Identity", "Identity").input(&restore.output(i)?).attr("T", v.dtype()).build_output()?;
            assigns.push(ops::assign_variable_op(&s, &v.reference(), &value)?);
            continue;
        }
        assigns.push(
            s.named("Assign")
                .op("Assign", "Assign")
                .input(&v.reference())
                .input(&restore.output(i)?)
                .attr("T", v.dtype())
                .attr("_class", AttrValue::colocation(&v.op_name()))
                .attr("use_locking", true)
                .attr("validate_shape", true)
                .build()?,
        );
    }
    let refs: Vec<&Operation> = assigns.iter().collect();
    let restore_all = ops::group(&s.named("restore_all"), &refs)?;
    Ok(SaverDef {
        filename_tensor_name: format!("{}:0", prefix.op().name()),
        save_tensor_name: format!("{}:0", control.name()),
        restore_op_name: restore_all.name(),
        max_to_keep: 5,
        sharded: false,
        keep_checkpoint_every_n_hours: 10000.0,
        version: crate::format::proto::meta_graph::SAVER_DEF_V2,
    })
}
