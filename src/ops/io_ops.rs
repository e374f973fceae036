//! The ops of TensorFlow's saver subgraph (`save/...`): SaveV2, RestoreV2, StringJoin,
//! ShardedFilename and MergeV2Checkpoints. Running `save/control_dependency` or
//! `save/restore_all` from an imported meta graph writes or reads a V2 checkpoint
//! through these kernels, like `Saver::save` and `Saver::restore`.

use super::{FnKernel, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::format::checkpoint::{data_path, index_path, CheckpointReader, CheckpointWriter, TensorSliceReader};
use crate::graph::{AttrValue, Node, Operation, Output, Scope};
use crate::tensor::{DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] =
    &[&SaveV2, &RestoreV2, &StringJoin, &ShardedFilename, &MergeV2Checkpoints];

/// The UTF-8 text of a string scalar input (a file name or prefix).
pub(super) fn text(t: &Tensor, what: &str) -> Result<String> {
    match t.storage() {
        crate::tensor::Storage::Str(v) if v.len() == 1 => {
            String::from_utf8(v[0].clone()).map_err(|_| Error::invalid_argument(format!("{what} is not UTF-8 text")))
        }
        _ => Err(Error::invalid_argument(format!("{what} must be a string scalar"))),
    }
}

/// The elements of a 1-d string input.
pub(super) fn strings(t: &Tensor, what: &str) -> Result<Vec<String>> {
    match t.storage() {
        crate::tensor::Storage::Str(v) => v
            .iter()
            .map(|b| String::from_utf8(b.clone()).map_err(|_| Error::invalid_argument(format!("{what} is not UTF-8"))))
            .collect(),
        _ => Err(Error::invalid_argument(format!("{what} must be a string tensor, got {}", t.dtype()))),
    }
}

/// `node`'s `dtypes` attr (a list of types; none when absent).
/// Errors: `InvalidArgument` naming the node when it is of another kind.
fn dtypes_attr(node: &Node) -> Result<Vec<DType>> {
    match node.attrs.get("dtypes") {
        Some(AttrValue::ListType(v)) => Ok(v.clone()),
        None => Ok(vec![]),
        Some(v) => Err(Error::invalid_argument(format!(
            "attr 'dtypes' of op '{}' ({}) must be a list of types, got {v:?}",
            node.name, node.op_type
        ))),
    }
}

/// `SaveV2(prefix, tensor_names, shape_and_slices, tensors...)`: writes the tensors to
/// the V2 checkpoint `prefix`. Only whole tensors (empty `shape_and_slices`) are supported.
pub struct SaveV2;
impl RegisteredOp for SaveV2 {
    fn op_type(&self) -> &'static str {
        "SaveV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.len() < 3 {
            return Err(Error::invalid_argument("SaveV2 needs prefix, tensor_names, shape_and_slices and tensors"));
        }
        Ok(vec![])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        // attr dtypes (the tensors' dtypes) is not needed: the kernel writes what it gets
        Ok(Box::new(FnKernel(save_v2)))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The kernel of `SaveV2`.
fn save_v2(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let prefix = text(ctx.input(0), "SaveV2 prefix")?;
    let names = strings(ctx.input(1), "SaveV2 tensor_names")?;
    let slices = strings(ctx.input(2), "SaveV2 shape_and_slices")?;
    let tensors = &ctx.inputs[3..];
    if names.len() != tensors.len() || slices.len() != tensors.len() {
        return Err(Error::invalid_argument(format!(
            "SaveV2 got {} names, {} shape_and_slices and {} tensors",
            names.len(),
            slices.len(),
            tensors.len()
        )));
    }
    if let Some(s) = slices.iter().find(|s| !s.is_empty()) {
        return Err(Error::unimplemented(format!("SaveV2 of a slice ('{s}') is not supported; save whole tensors")));
    }
    let mut w = CheckpointWriter::new(&prefix)?;
    for (n, t) in names.iter().zip(tensors) {
        w.add(n, t)?;
    }
    w.finish()?;
    Ok(vec![])
}

/// `RestoreV2(prefix, tensor_names, shape_and_slices)`: reads the named tensors from the
/// checkpoint `prefix`; attr `dtypes` gives each output's dtype. As TensorFlow's, it reads a
/// V1 checkpoint when `prefix` is such a file (no `prefix.index`). Errors: `NotFound`
/// naming a missing key; `InvalidArgument` for a dtype mismatch.
pub struct RestoreV2;
impl RegisteredOp for RestoreV2 {
    fn op_type(&self) -> &'static str {
        "RestoreV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        Ok(dtypes_attr(ctx.node)?.into_iter().map(|d| (d, Shape::unknown())).collect())
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(RestoreKernel { dtypes: dtypes_attr(node)? }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The kernel of `RestoreV2`.
struct RestoreKernel {
    /// The dtype of each tensor read (attr `dtypes`).
    dtypes: Vec<DType>,
}

impl Kernel for RestoreKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let prefix = text(ctx.input(0), "RestoreV2 prefix")?;
        let names = strings(ctx.input(1), "RestoreV2 tensor_names")?;
        let dtypes = &self.dtypes;
        if names.len() != dtypes.len() {
            return Err(Error::invalid_argument(format!(
                "RestoreV2 got {} names for {} dtypes",
                names.len(),
                dtypes.len()
            )));
        }
        if !index_path(&prefix).exists() && std::path::Path::new(&prefix).is_file() {
            // TensorFlow's RestoreV2 reads a V1 checkpoint (a single tensor-slices file) too
            let v1 = TensorSliceReader::open(&prefix)?;
            return names.iter().zip(dtypes).map(|(n, &d)| v1.read(n, d)).collect();
        }
        let reader = CheckpointReader::open(&prefix)?;
        let mut out = Vec::with_capacity(names.len());
        for (n, &d) in names.iter().zip(dtypes) {
            // NotFound `Key n not found in checkpoint ...`, with the closest keys it has
            let t = reader.read(n)?;
            if t.dtype() != d {
                return Err(Error::invalid_argument(format!(
                    "tensor {n} in checkpoint {prefix} is {}, but RestoreV2 expected {d}",
                    t.dtype()
                )));
            }
            out.push(t);
        }
        Ok(out)
    }
}

/// `StringJoin(inputs...)`: element-wise concatenation of string scalars with attr `separator`.
pub struct StringJoin;
impl RegisteredOp for StringJoin {
    fn op_type(&self) -> &'static str {
        "StringJoin"
    }
    fn infer(&self, _: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        Ok(vec![(DType::String, Shape::scalar())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let separator = match node.attrs.get("separator") {
            None => Vec::new(),
            Some(AttrValue::String(s)) => s.clone(),
            Some(v) => {
                return Err(Error::invalid_argument(format!(
                    "attr 'separator' of op '{}' ({}) should be a string, got {v:?}",
                    node.name, node.op_type
                )))
            }
        };
        Ok(Box::new(StringJoinKernel { separator }))
    }
}

/// The kernel of `StringJoin`.
struct StringJoinKernel {
    /// Put between the inputs (attr `separator`).
    separator: Vec<u8>,
}

impl Kernel for StringJoinKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let mut out = Vec::new();
        for (i, t) in ctx.inputs.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(&self.separator);
            }
            out.extend_from_slice(text(t, "StringJoin input")?.as_bytes());
        }
        Ok(vec![Tensor::strings(&[], vec![out])?])
    }
}

/// `ShardedFilename(basename, shard, num_shards)`: `basename-00000-of-00001`.
pub struct ShardedFilename;
impl RegisteredOp for ShardedFilename {
    fn op_type(&self) -> &'static str {
        "ShardedFilename"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        Ok(vec![(DType::String, Shape::scalar())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(FnKernel(|ctx| {
            let base = text(ctx.input(0), "ShardedFilename basename")?;
            let shard = ctx.input(1).to_f64_vec()?.first().copied().unwrap_or(0.0) as i64;
            let n = ctx.input(2).to_f64_vec()?.first().copied().unwrap_or(1.0) as i64;
            Ok(vec![Tensor::strings(&[], vec![format!("{base}-{shard:05}-of-{n:05}").into_bytes()])?])
        })))
    }
}

/// `MergeV2Checkpoints(checkpoint_prefixes, destination_prefix)`: merges the per-shard
/// checkpoints into one (attr `delete_old_dirs` removes the sources' directory when empty).
pub struct MergeV2Checkpoints;
impl RegisteredOp for MergeV2Checkpoints {
    fn op_type(&self) -> &'static str {
        "MergeV2Checkpoints"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        Ok(vec![])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(MergeKernel { delete_old_dirs: node.attr_bool_or("delete_old_dirs", true)? }))
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// The kernel of `MergeV2Checkpoints`.
struct MergeKernel {
    /// Remove the sources and their directory when empty (attr `delete_old_dirs`).
    delete_old_dirs: bool,
}

impl Kernel for MergeKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let sources = strings(ctx.input(0), "MergeV2Checkpoints checkpoint_prefixes")?;
        let dest = text(ctx.input(1), "MergeV2Checkpoints destination_prefix")?;
        let mut w = CheckpointWriter::new(&dest)?;
        for src in &sources {
            let r = CheckpointReader::open(src)?;
            for (name, _, _) in r.list() {
                w.add(&name, &r.read(&name)?)?;
            }
        }
        w.finish()?;
        if self.delete_old_dirs {
            for src in &sources {
                let _ = std::fs::remove_file(index_path(src));
                let _ = std::fs::remove_file(data_path(src, 0, 1));
                if let Some(dir) = std::path::Path::new(src).parent() {
                    let _ = std::fs::remove_dir(dir);
                }
            }
        }
        Ok(vec![])
    }
}

/// A 1-d string tensor of `v` (`tensor_names`, `shape_and_slices` of the saver ops).
pub(crate) fn string_vector(v: &[&str]) -> Result<Tensor> {
    Tensor::strings(&[v.len()], v.iter().map(|s| s.as_bytes().to_vec()).collect())
}

/// `RestoreV2` (`tf.raw_ops.RestoreV2`) reading the whole tensors `names` (of `dtypes`)
/// from the checkpoint `prefix` (a string scalar) when it runs: the op named by `op` (from
/// [`Scope::op_scope`]), with its constants `tensor_names` and `shape_and_slices` (all
/// `""`) in the op's name scope `inner`. Output `i`: tensor `names[i]`, of unknown shape.
/// Errors: as the ops added; when run, `NotFound` for a missing checkpoint or tensor.
pub fn restore_v2(op: &Scope, inner: &Scope, prefix: &Output, names: &[&str], dtypes: &[DType]) -> Result<Operation> {
    let tensor_names = super::constant(&inner.named("tensor_names"), string_vector(names)?)?;
    let slices = super::constant(&inner.named("shape_and_slices"), string_vector(&vec![""; names.len()])?)?;
    op.op("RestoreV2", "RestoreV2")
        .input(prefix)
        .input(&tensor_names)
        .input(&slices)
        .attr("dtypes", AttrValue::ListType(dtypes.to_vec()))
        .build()
}
