//! Summary ops (TensorFlow's `logging_ops` summaries and `summary_ops`): each outputs a
//! string scalar, a serialized `tensorflow.Summary` that a `FileWriter` writes with
//! `add_summary(bytes, step)`. `ScalarSummary`, `TensorSummaryV2` and `MergeSummary` here;
//! `HistogramSummary` in [`histogram`], `ImageSummary` in [`image`]. The builders mirror
//! `tf.compat.v1.summary.scalar` / `histogram` / `image` / `text` / `merge` / `merge_all`:
//! the op is named after the tag in the current name scope, its helper constants go under it
//! (`loss/tags`), the tag is the op's name, and the op is added to the `summaries`
//! collection ([`SUMMARIES`], TensorFlow's `GraphKeys.SUMMARIES`).

pub mod histogram;
pub mod image;

use super::{array::constant, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::format::proto::{PluginData, Summary, SummaryKind, SummaryMetadata, SummaryValue, TensorProto};
use crate::graph::{Graph, Node, Output, Scope};
use crate::tensor::{fmt_dims, DType, Shape, Storage, Tensor};
use prost::Message;
use std::collections::HashSet;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&ScalarSummary, &TensorSummaryV2, &MergeSummary];

/// The collection summary builders add their op to (`tf.GraphKeys.SUMMARIES`).
pub const SUMMARIES: &str = "summaries";

/// The dtypes of TensorFlow's `realnumbertypes` (the `T` of `ScalarSummary` and
/// `HistogramSummary`).
pub(crate) const REAL_NUMBER_TYPES: &[DType] = &[
    DType::Float,
    DType::Double,
    DType::Int32,
    DType::UInt8,
    DType::Int16,
    DType::Int8,
    DType::Int64,
    DType::BFloat16,
    DType::UInt16,
    DType::Half,
    DType::UInt32,
    DType::UInt64,
];

/// Dimensions as TensorFlow writes them in messages: `[2,3]`.
pub(crate) fn dims_text(d: &[usize]) -> String {
    fmt_dims(d).replace(", ", ",")
}

/// A string scalar holding `summary` serialized: every summary op's output.
pub(crate) fn summary_tensor(summary: &Summary) -> Tensor {
    Tensor::strings(&[], vec![summary.encode_to_vec()]).expect("one string for a scalar")
}

/// The elements of a string tensor. Errors: `InvalidArgument` for another dtype.
pub(crate) fn strings(t: &Tensor) -> Result<&[Vec<u8>]> {
    match t.storage() {
        Storage::Str(v) => Ok(v),
        _ => Err(Error::invalid_argument(format!("expected a string tensor, got {}", t.dtype()))),
    }
}

/// The bytes of string input `i`, which must be a scalar (`what` names it in the error).
pub(crate) fn scalar_string<'a>(ctx: &'a KernelCtx, i: usize, what: &str) -> Result<&'a [u8]> {
    let t = ctx.input(i);
    if t.rank() != 0 {
        return Err(Error::invalid_argument(format!(
            "{what} must be scalar, got shape {}; give one string",
            dims_text(t.shape())
        )));
    }
    Ok(&strings(t)?[0])
}

/// TensorFlow's `clean_tag`: characters other than letters, digits, `_`, `-`, `/` and `.`
/// become `_`, and a leading `/` is dropped, so the tag is a valid op name.
pub fn clean_tag(name: &str) -> String {
    let cleaned: String =
        name.chars().map(|c| if c.is_alphanumeric() || "_-/.".contains(c) { c } else { '_' }).collect();
    cleaned.trim_start_matches('/').to_string()
}

/// The name scope of a summary op named `name`: (scope naming the op, scope of its helper
/// ops, the tag: the op's full name).
pub(crate) fn summary_scope(s: &Scope, name: &str) -> (Scope, Scope, String) {
    let (op, inner) = s.op_scope(&clean_tag(name));
    let tag = inner.prefix().to_string();
    (op, inner, tag)
}

/// Adds a built summary to the `summaries` collection and returns it.
pub(crate) fn collect(out: Output) -> Result<Output> {
    out.graph().add_to_collection(SUMMARIES, out.clone())?;
    Ok(out)
}

/// `ScalarSummary(tags, values)` (attr `T`, a real number type): a `Summary` with one
/// `simple_value` (the value as float32) per element of `values`, tagged by the element of
/// the string tensor `tags` at the same index. Output: a string scalar. Errors when run:
/// `InvalidArgument` `tags and values are not the same shape: [2] != [3]`.
pub struct ScalarSummary;
impl RegisteredOp for ScalarSummary {
    fn op_type(&self) -> &'static str {
        "ScalarSummary"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        ctx.check_dtype(0, &[DType::String])?;
        ctx.check_dtype(1, REAL_NUMBER_TYPES)?;
        ctx.check_type_attr("T", 1)?;
        Ok(vec![(DType::String, Shape::scalar())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ScalarSummaryKernel))
    }
}

/// The prepared `ScalarSummary`.
struct ScalarSummaryKernel;
impl Kernel for ScalarSummaryKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (tags, values) = (ctx.input(0), ctx.input(1));
        if tags.shape() != values.shape() {
            return Err(Error::invalid_argument(format!(
                "tags and values are not the same shape: {} != {}",
                dims_text(tags.shape()),
                dims_text(values.shape())
            )));
        }
        let values = values.to_f64_vec()?;
        let value = strings(tags)?
            .iter()
            .zip(values)
            .map(|(tag, v)| SummaryValue {
                tag: String::from_utf8_lossy(tag).into_owned(),
                value: Some(SummaryKind::SimpleValue(v as f32)),
                ..Default::default()
            })
            .collect();
        Ok(vec![summary_tensor(&Summary { value })])
    }
}

/// `TensorSummaryV2(tag, tensor, serialized_summary_metadata)` (attr `T`, any dtype): a
/// `Summary` with one value tagged `tag` holding `tensor` (its bytes in `tensor_content`,
/// strings in `string_val`, as TensorFlow writes it) and the `SummaryMetadata` parsed from
/// the string scalar `serialized_summary_metadata` (the text plugin's for `tf.summary.text`).
/// Errors when run: `InvalidArgument` for a non-scalar tag or metadata, or metadata bytes that
/// are not a `SummaryMetadata`.
pub struct TensorSummaryV2;
impl RegisteredOp for TensorSummaryV2 {
    fn op_type(&self) -> &'static str {
        "TensorSummaryV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_dtype(0, &[DType::String])?;
        ctx.check_dtype(2, &[DType::String])?;
        ctx.check_type_attr("T", 1)?;
        Ok(vec![(DType::String, Shape::scalar())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(TensorSummaryKernel))
    }
}

/// The prepared `TensorSummaryV2`.
struct TensorSummaryKernel;
impl Kernel for TensorSummaryKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let tag = String::from_utf8_lossy(scalar_string(ctx, 0, "tag")?).into_owned();
        let bytes = scalar_string(ctx, 2, "serialized_summary_metadata")?;
        let metadata = SummaryMetadata::decode(bytes).map_err(|e| {
            Error::invalid_argument(format!(
                "serialized_summary_metadata of summary '{tag}' is not a serialized SummaryMetadata: {e}"
            ))
        })?;
        let tensor = TensorProto::content_form(ctx.input(1));
        let value = SummaryValue {
            tag,
            value: Some(SummaryKind::Tensor(Box::new(tensor))),
            metadata: Some(metadata),
            ..Default::default()
        };
        Ok(vec![summary_tensor(&Summary { value: vec![value] })])
    }
}

/// `MergeSummary(inputs)` (attr `N` ≥ 1): the values of every serialized `Summary` in the
/// string tensors `inputs` (every element of each), in order, as one `Summary`. Errors when
/// run: `InvalidArgument` `Could not parse one of the summary inputs` and `Duplicate tag a
/// found in summary inputs ` (TensorFlow's wording, trailing space included).
pub struct MergeSummary;
impl RegisteredOp for MergeSummary {
    fn op_type(&self) -> &'static str {
        "MergeSummary"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.is_empty() {
            return Err(Error::invalid_argument("MergeSummary needs at least one input (attr N >= 1)"));
        }
        for i in 0..ctx.inputs.len() {
            ctx.check_dtype(i, &[DType::String])?;
        }
        Ok(vec![(DType::String, Shape::scalar())])
    }
    fn prepare(&'static self, _: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(MergeSummaryKernel))
    }
}

/// The prepared `MergeSummary`.
struct MergeSummaryKernel;
impl Kernel for MergeSummaryKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let mut merged = Summary::default();
        let mut tags = HashSet::new();
        for input in &ctx.inputs {
            for bytes in strings(input)? {
                let s = Summary::decode(bytes.as_slice())
                    .map_err(|_| Error::invalid_argument("Could not parse one of the summary inputs"))?;
                for v in s.value {
                    if !tags.insert(v.tag.clone()) {
                        return Err(Error::invalid_argument(format!(
                            "Duplicate tag {} found in summary inputs ",
                            v.tag
                        )));
                    }
                    merged.value.push(v);
                }
            }
        }
        Ok(vec![summary_tensor(&merged)])
    }
}

/// `tf.compat.v1.summary.scalar(name, tensor)`: op `ScalarSummary` named `name` (cleaned
/// by [`clean_tag`], uniquified) with the constant `name/tags`, tagged with the op's full
/// name, added to [`SUMMARIES`]. `tensor`: a real-number scalar. Output: a string scalar.
pub fn scalar(s: &Scope, name: &str, tensor: &Output) -> Result<Output> {
    let (op, inner, tag) = summary_scope(s, name);
    let tags = constant(&inner.named("tags"), Tensor::strings(&[], vec![tag.into_bytes()])?)?;
    let out =
        op.op("ScalarSummary", "ScalarSummary").input(&tags).input(tensor).attr("T", tensor.dtype()).build_output()?;
    collect(out)
}

/// `tf.compat.v1.summary.tensor_summary` with explicit metadata: op `TensorSummaryV2` named
/// `name` with the constants `name/tag` and `name/serialized_summary_metadata`, added to
/// [`SUMMARIES`]. `tensor`: any dtype and shape.
pub fn tensor_summary(s: &Scope, name: &str, tensor: &Output, metadata: &SummaryMetadata) -> Result<Output> {
    let (op, inner, tag) = summary_scope(s, name);
    let tag = constant(&inner.named("tag"), Tensor::strings(&[], vec![tag.into_bytes()])?)?;
    let meta = Tensor::strings(&[], vec![metadata.encode_to_vec()])?;
    let meta = constant(&inner.named("serialized_summary_metadata"), meta)?;
    let out = op
        .op("TensorSummaryV2", "TensorSummaryV2")
        .input(&tag)
        .input(tensor)
        .input(&meta)
        .attr("T", tensor.dtype())
        .build_output()?;
    collect(out)
}

/// `tf.compat.v1.summary.text(name, tensor)`: a [`tensor_summary`] of the string tensor
/// `tensor` for TensorBoard's text plugin (metadata plugin name `text`). Errors:
/// `InvalidArgument` when `tensor` is not a string tensor.
pub fn text(s: &Scope, name: &str, tensor: &Output) -> Result<Output> {
    if tensor.dtype() != DType::String {
        return Err(Error::invalid_argument(format!(
            "summary text '{name}' needs a string tensor, got {}",
            tensor.dtype()
        )));
    }
    let plugin_data = Some(PluginData { plugin_name: "text".into(), content: Vec::new() });
    tensor_summary(s, name, tensor, &SummaryMetadata { plugin_data, ..Default::default() })
}

/// `tf.compat.v1.summary.merge(inputs)`: op `MergeSummary` (default name `Merge/MergeSummary`
/// as TensorFlow's, under the scope `Merge`), the values of all `inputs` in one `Summary`.
/// Not added to a collection. Errors: `InvalidArgument` for an empty list.
pub fn merge(s: &Scope, inputs: &[Output]) -> Result<Output> {
    if inputs.is_empty() {
        return Err(Error::invalid_argument("summary merge needs at least one summary to merge"));
    }
    let inner = s.name_scope("Merge");
    inner.op("MergeSummary", "MergeSummary").inputs(inputs).attr("N", inputs.len() as i64).build_output()
}

/// `tf.compat.v1.summary.merge_all()`: a [`merge`] of every tensor in the graph's
/// [`SUMMARIES`] collection, or `None` when it is empty (TensorFlow returns `None` too).
pub fn merge_all(graph: &Graph) -> Result<Option<Output>> {
    let inputs = graph.tensors_in(SUMMARIES);
    if inputs.is_empty() {
        return Ok(None);
    }
    merge(&graph.scope(), &inputs).map(Some)
}
