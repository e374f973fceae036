//! The V1 saver ops of TensorFlow 1.x (`tf.train.Saver(write_version=V1)`, and graphs
//! written before V2 checkpoints): `Save` and `SaveSlices` write a V1 checkpoint (one
//! tensor-slices SSTable file, [`crate::format::checkpoint::tensor_slices`]); `Restore` and
//! `RestoreSlice` read one (`ShardedFilespec` names a sharded save's files). As in TensorFlow 2.21, the V1 restore ops read only V1 files: a
//! V2 checkpoint's prefix is `NotFound` with advice to use `RestoreV2`.

use super::io_ops::{strings, text};
use super::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::format::checkpoint::{
    concrete_extents, parse_shape_and_slice, write_tensor_slices, SliceToSave, TensorSliceReader,
};
use crate::graph::{AttrValue, Node, Operation, Output, Scope};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&Save, &SaveSlices, &Restore, &RestoreSlice, &ShardedFilespec];

/// Writes `data` under `names` (with the shape-and-slice `specs`, `""` for whole tensors) to
/// the V1 checkpoint file `filename`.
fn save(op: &str, filename: &Tensor, names: &Tensor, specs: Option<&Tensor>, data: &[Tensor]) -> Result<()> {
    let file = text(filename, &format!("{op} filename"))?;
    let names = strings(names, &format!("{op} tensor_names"))?;
    let specs = match specs {
        Some(t) => strings(t, &format!("{op} shapes_and_slices"))?,
        None => vec![String::new(); names.len()],
    };
    if names.len() != data.len() || specs.len() != data.len() {
        return Err(Error::invalid_argument(format!(
            "{op}: Expected tensor_names{} to have {} elements (one per data tensor), got {} names and {} shapes_and_slices",
            if op == "SaveSlices" { " and shapes_and_slices" } else { "" },
            data.len(),
            names.len(),
            specs.len()
        )));
    }
    let mut slices = Vec::with_capacity(data.len());
    for ((name, spec), t) in names.iter().zip(&specs).zip(data) {
        let (full_shape, extents) = match parse_shape_and_slice(spec)? {
            None => (t.shape().to_vec(), None),
            Some((shape, ext)) => (shape, Some(ext)),
        };
        slices.push(SliceToSave { name, full_shape, extents, data: t });
    }
    write_tensor_slices(&file, &slices)
}

/// `Save(filename, tensor_names, data...)`: writes the whole tensors `data` (list attr `T`)
/// under `tensor_names` to the V1 checkpoint file `filename` (TensorFlow 1.x's `tf.train.Saver`
/// with `write_version=V1` writes `SaveSlices`; this is its whole-tensor form). No outputs.
/// Errors: `InvalidArgument` when the names do not match the data in number, a name is empty
/// or repeated; I/O errors naming the file.
pub struct Save;
impl RegisteredOp for Save {
    fn op_type(&self) -> &'static str {
        "Save"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.len() < 3 {
            return Err(Error::invalid_argument("Save needs filename, tensor_names and at least one tensor"));
        }
        Ok(vec![])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(super::FnKernel(|ctx| {
            save("Save", ctx.input(0), ctx.input(1), None, &ctx.inputs[2..])?;
            Ok(vec![])
        })))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `SaveSlices(filename, tensor_names, shapes_and_slices, data...)`: as `Save`, each tensor
/// either whole (spec `""`) or one slice of a bigger tensor (spec `"10 4 0,5:-"`: the full
/// shape, then `start,length` or `-` per dimension; the data has the slice's shape), as
/// `tf.train.Saver(write_version=V1)` writes partitioned variables. The file is the one
/// TensorFlow writes, byte for byte. Errors as `Save`'s, and `InvalidArgument` for a spec
/// that does not parse or does not fit the data.
pub struct SaveSlices;
impl RegisteredOp for SaveSlices {
    fn op_type(&self) -> &'static str {
        "SaveSlices"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.len() < 4 {
            return Err(Error::invalid_argument(
                "SaveSlices needs filename, tensor_names, shapes_and_slices and at least one tensor",
            ));
        }
        Ok(vec![])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(super::FnKernel(|ctx| {
            save("SaveSlices", ctx.input(0), ctx.input(1), Some(ctx.input(2)), &ctx.inputs[3..])?;
            Ok(vec![])
        })))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The `dt` attr of `Restore`/`RestoreSlice` and their `preferred_shard` (a hint TensorFlow
/// uses to read one shard first; every matching file is read here).
fn restore_dtype(node: &Node) -> Result<DType> {
    node.attr_int_or("preferred_shard", -1)?;
    node.attr_type("dt")
}

/// The kernel of `Restore` (no slice input) and `RestoreSlice`.
struct RestoreKernel {
    dtype: DType,
    sliced: bool,
}

impl Kernel for RestoreKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let op = ctx.op_type();
        let pattern = text(ctx.input(0), &format!("{op} file_pattern"))?;
        let name = text(ctx.input(1), &format!("{op} tensor_name"))?;
        let reader = TensorSliceReader::open(&pattern)?;
        let spec = if self.sliced {
            parse_shape_and_slice(&text(ctx.input(2), "RestoreSlice shape_and_slice")?)?
        } else {
            None
        };
        let t = match spec {
            None => reader.read(&name, self.dtype)?,
            Some((shape, extents)) => {
                let conc = concrete_extents(&extents, &shape)
                    .ok_or_else(|| Error::internal("a parsed shape_and_slice does not fit its shape"))?;
                reader.read_slice(&name, self.dtype, &shape, &conc)?
            }
        };
        Ok(vec![t])
    }
}

/// `Restore(file_pattern, tensor_name)`: the whole tensor `tensor_name` of dtype `dt` (attr)
/// read from the V1 checkpoint files matching `file_pattern` (a file name, or with `*`/`?`
/// for sharded saves), assembled from its saved slices. Errors (TensorFlow's words):
/// `NotFound` `Unsuccessful TensorSliceReader constructor: Failed to find any matching files
/// for P` (with advice to use `RestoreV2` when `P` is a V2 checkpoint's prefix), `NotFound`
/// `Tensor name "x" not found in checkpoint files P`, `InvalidArgument` `Expected to restore
/// a tensor of type float, got a tensor of type int64 instead: tensor_name = w`; `DataLoss`
/// for a corrupted file.
pub struct Restore;
impl RegisteredOp for Restore {
    fn op_type(&self) -> &'static str {
        "Restore"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        Ok(vec![(restore_dtype(ctx.node)?, Shape::unknown())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(RestoreKernel { dtype: restore_dtype(node)?, sliced: false }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `RestoreSlice(file_pattern, tensor_name, shape_and_slice)`: as `Restore`, but only the
/// slice `shape_and_slice` (`"2 3 1,1:-"`: the full shape, then `start,length` or `-` per
/// dimension; `""`: the whole tensor), of the slice's shape. Errors as `Restore`'s, and
/// `InvalidArgument` when the spec does not parse or its shape is not the saved one.
pub struct RestoreSlice;
impl RegisteredOp for RestoreSlice {
    fn op_type(&self) -> &'static str {
        "RestoreSlice"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        Ok(vec![(restore_dtype(ctx.node)?, Shape::unknown())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(RestoreKernel { dtype: restore_dtype(node)?, sliced: true }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// `ShardedFilespec(basename, num_shards)`: the file pattern of a sharded V1 save,
/// `basename-?????-of-00002` (string scalar), which a sharded `tf.train.Saver` of TensorFlow
/// 1.x feeds its `Restore` ops.
pub struct ShardedFilespec;
impl RegisteredOp for ShardedFilespec {
    fn op_type(&self) -> &'static str {
        "ShardedFilespec"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        Ok(vec![(DType::String, Shape::scalar())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(super::FnKernel(|ctx| {
            let base = text(ctx.input(0), "ShardedFilespec basename")?;
            let n = ctx.input(1).to_f64_vec()?.first().copied().unwrap_or(1.0) as i64;
            Ok(vec![Tensor::strings(&[], vec![format!("{base}-?????-of-{n:05}").into_bytes()])?])
        })))
    }
}

/// `tf.raw_ops.SaveSlices`: op `SaveSlices` (attr `T`), default name `SaveSlices`, writing
/// `data` to the V1 checkpoint file `filename` (string scalar) under `tensor_names` with
/// `shapes_and_slices` (1-d string tensors) when run. Errors when run as [`SaveSlices`]'s.
pub fn save_slices(
    s: &Scope,
    filename: &Output,
    tensor_names: &Output,
    shapes_and_slices: &Output,
    data: &[Output],
) -> Result<Operation> {
    s.op("SaveSlices", "SaveSlices")
        .input(filename)
        .input(tensor_names)
        .input(shapes_and_slices)
        .inputs(data)
        .attr("T", AttrValue::ListType(data.iter().map(|d| d.dtype()).collect()))
        .build()
}

/// `tf.raw_ops.Restore`: op `Restore` (attrs `dt`, `preferred_shard = -1`), default name
/// `Restore`; the tensor `tensor_name` of `dt` from the V1 checkpoint files matching
/// `file_pattern` when run. Errors when run as [`Restore`]'s.
pub fn restore(s: &Scope, file_pattern: &Output, tensor_name: &Output, dt: DType) -> Result<Output> {
    s.op("Restore", "Restore").input(file_pattern).input(tensor_name).attr("dt", dt).build_output()
}

/// `tf.raw_ops.RestoreSlice`: op `RestoreSlice`, default name `RestoreSlice`; the slice
/// `shape_and_slice` of tensor `tensor_name`. Errors when run as [`RestoreSlice`]'s.
pub fn restore_slice(
    s: &Scope,
    file_pattern: &Output,
    tensor_name: &Output,
    shape_and_slice: &Output,
    dt: DType,
) -> Result<Output> {
    s.op("RestoreSlice", "RestoreSlice")
        .input(file_pattern)
        .input(tensor_name)
        .input(shape_and_slice)
        .attr("dt", dt)
        .build_output()
}
