//! Parsing ops (TensorFlow's `parsing_ops`): `ParseExample` (TensorFlow 1.x) and
//! `ParseExampleV2` (`tf.io.parse_example`), which turn serialized `tf.train.Example` protos,
//! what serving signatures are fed, into dense tensors (and sparse ones as index/value/shape
//! triples).

use super::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::error::{Error, Result};
use crate::format::proto::{Example, FeatureKind};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::tensor::{fmt_dims, DType, Shape, Storage, Tensor};
use prost::Message;
use std::collections::BTreeMap;

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&ParseExample, &ParseExampleV2];

/// A `list(type)` attr (absent or an empty list of any kind: no types).
fn list_types(node: &Node, name: &str) -> Result<Vec<DType>> {
    match node.attrs.get(name) {
        None => Ok(vec![]),
        Some(AttrValue::ListType(v)) => Ok(v.clone()),
        Some(AttrValue::ListString(v)) if v.is_empty() => Ok(vec![]),
        Some(v) => Err(Error::invalid_argument(format!(
            "attr '{name}' of op '{}' must be a list of types, got {v:?}",
            node.name
        ))),
    }
}

/// A `list(shape)` attr (absent or an empty list of any kind: no shapes).
fn list_shapes(node: &Node, name: &str) -> Result<Vec<Shape>> {
    match node.attrs.get(name) {
        None => Ok(vec![]),
        Some(AttrValue::ListShape(v)) => Ok(v.clone()),
        Some(AttrValue::ListString(v)) if v.is_empty() => Ok(vec![]),
        Some(v) => Err(Error::invalid_argument(format!(
            "attr '{name}' of op '{}' must be a list of shapes, got {v:?}",
            node.name
        ))),
    }
}

/// The features a parse op extracts: sparse value dtypes, dense dtypes and shapes (attrs),
/// ragged value and split dtypes (`ParseExampleV2`), and whether it is `ParseExampleV2`
/// (keys as vectors, a scalar `serialized` allowed).
#[derive(Clone)]
struct Config {
    sparse_types: Vec<DType>,
    dense_types: Vec<DType>,
    /// The dense shapes as declared (a variable-length feature has an unknown dimension).
    partial: Vec<Shape>,
    /// The dense shapes, when all are fixed (what the kernel parses); set by `supported`.
    dense_shapes: Vec<Vec<usize>>,
    ragged: Vec<(DType, DType)>,
    v2: bool,
}

impl Config {
    /// Reads the attrs. Errors: `InvalidArgument` for lists of other lengths than the counts.
    fn of(node: &Node, v2: bool) -> Result<Config> {
        let sparse_types = list_types(node, "sparse_types")?;
        let dense_types = list_types(node, "Tdense")?;
        let partial = list_shapes(node, "dense_shapes")?;
        let num_sparse = node.attr_int_or(if v2 { "num_sparse" } else { "Nsparse" }, 0)?;
        let (ragged_values, ragged_splits) = if v2 {
            (list_types(node, "ragged_value_types")?, list_types(node, "ragged_split_types")?)
        } else {
            (vec![], vec![])
        };
        if sparse_types.len() as i64 != num_sparse
            || partial.len() != dense_types.len()
            || ragged_values.len() != ragged_splits.len()
        {
            return Err(Error::invalid_argument(format!(
                "{}: sparse_types has {} types for {num_sparse} sparse features, dense_shapes {} shapes for {} dense types, ragged_value_types {} types for {} ragged_split_types",
                node.name,
                sparse_types.len(),
                partial.len(),
                dense_types.len(),
                ragged_values.len(),
                ragged_splits.len()
            )));
        }
        let ragged = ragged_values.into_iter().zip(ragged_splits).collect();
        Ok(Config { sparse_types, dense_types, partial, dense_shapes: Vec::new(), ragged, v2 })
    }

    /// This configuration made ready for the kernel: every dense shape fixed.
    /// Errors: `Unimplemented` naming the node for a dense shape with unknown dimensions
    /// (a variable-length `FixedLenSequenceFeature`) and for ragged features.
    fn supported(mut self, node: &Node) -> Result<Config> {
        if !self.ragged.is_empty() {
            return Err(Error::unimplemented(format!(
                "{}: ParseExampleV2 with ragged features is not supported; parse them as sparse features (VarLenFeature)",
                node.name
            )));
        }
        for (d, s) in self.partial.iter().enumerate() {
            self.dense_shapes.push(s.to_vec().ok_or_else(|| {
                Error::unimplemented(format!(
                    "{}: dense feature {d} has shape {s}: variable-length dense features (FixedLenSequenceFeature) are not supported; give the feature a fixed shape or parse it as a sparse feature (VarLenFeature)",
                    node.name
                ))
            })?);
        }
        Ok(self)
    }

    /// The output dtypes and shapes for a `serialized` input of shape `batch`.
    fn outputs(&self, batch: &Shape) -> Vec<(DType, Shape)> {
        let ns = self.sparse_types.len();
        let (lead, index_rank): (Option<Vec<Option<usize>>>, usize) = match batch.dims() {
            Some([]) => (Some(vec![]), 1),
            Some(d) => (Some(d.to_vec()), d.len() + 1),
            None => (None, 0),
        };
        let mut out = Vec::with_capacity(3 * ns + self.dense_types.len());
        let idx =
            if index_rank > 0 { Shape::partial(&[None, Some(index_rank)]) } else { Shape::partial(&[None, None]) };
        out.extend((0..ns).map(|_| (DType::Int64, idx.clone())));
        out.extend(self.sparse_types.iter().map(|&t| (t, Shape::partial(&[None]))));
        let sh = if index_rank > 0 { Shape::known(&[index_rank]) } else { Shape::partial(&[None]) };
        out.extend((0..ns).map(|_| (DType::Int64, sh.clone())));
        for (t, s) in self.dense_types.iter().zip(&self.partial) {
            let shape = match (&lead, s.dims()) {
                (Some(l), Some(dims)) => {
                    let mut d = l.clone();
                    d.extend_from_slice(dims);
                    Shape::partial(&d)
                }
                _ => Shape::unknown(),
            };
            out.push((*t, shape));
        }
        out.extend(self.ragged.iter().map(|&(v, _)| (v, Shape::partial(&[None]))));
        out.extend(self.ragged.iter().map(|&(_, r)| (r, Shape::partial(&[None]))));
        out
    }
}

/// TensorFlow's `DataTypeString` of a feature dtype (`float`, `int64`, `string`).
fn type_name(t: DType) -> &'static str {
    match t {
        DType::Float => "float",
        DType::Int64 => "int64",
        _ => "string",
    }
}

/// The dtype of a feature's value list and its length.
fn kind_of(k: &FeatureKind) -> (DType, usize) {
    match k {
        FeatureKind::FloatList(l) => (DType::Float, l.value.len()),
        FeatureKind::Int64List(l) => (DType::Int64, l.value.len()),
        FeatureKind::BytesList(l) => (DType::String, l.value.len()),
    }
}

/// Values of one dtype gathered over examples.
enum Values {
    F32(Vec<f32>),
    I64(Vec<i64>),
    Str(Vec<Vec<u8>>),
}

impl Values {
    fn new(t: DType) -> Values {
        match t {
            DType::Float => Values::F32(Vec::new()),
            DType::Int64 => Values::I64(Vec::new()),
            _ => Values::Str(Vec::new()),
        }
    }
    /// Appends a feature's list (of this dtype).
    fn push_feature(&mut self, k: &FeatureKind) {
        match (self, k) {
            (Values::F32(v), FeatureKind::FloatList(l)) => v.extend_from_slice(&l.value),
            (Values::I64(v), FeatureKind::Int64List(l)) => v.extend_from_slice(&l.value),
            (Values::Str(v), FeatureKind::BytesList(l)) => v.extend_from_slice(&l.value),
            _ => {}
        }
    }
    /// Appends a default tensor's values (of this dtype).
    fn push_tensor(&mut self, t: &Tensor) {
        match (self, t.storage()) {
            (Values::F32(v), Storage::F32(s)) => v.extend_from_slice(s),
            (Values::I64(v), Storage::I64(s)) => v.extend_from_slice(s),
            (Values::Str(v), Storage::Str(s)) => v.extend_from_slice(s),
            _ => {}
        }
    }
    fn into_tensor(self, shape: &[usize]) -> Result<Tensor> {
        match self {
            Values::F32(v) => Tensor::new(shape, v),
            Values::I64(v) => Tensor::new(shape, v),
            Values::Str(v) => Tensor::strings(shape, v),
        }
    }
}

/// The byte strings of a string tensor input.
fn strings<'a>(t: &'a Tensor, what: &str) -> Result<&'a [Vec<u8>]> {
    match t.storage() {
        Storage::Str(v) => Ok(v),
        _ => Err(Error::invalid_argument(format!("{what} must be a string tensor, got {}", t.dtype()))),
    }
}

/// The UTF-8 keys of string tensor inputs.
fn keys(ts: &[Tensor], what: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for t in ts {
        for k in strings(t, what)? {
            out.push(String::from_utf8_lossy(k).into_owned());
        }
    }
    Ok(out)
}

/// Parses `serialized` (shape `batch_shape`: `[B]`, or `[]` for one example) with `cfg`.
fn parse(
    cfg: &Config,
    serialized: &Tensor,
    names: &[Vec<u8>],
    sparse_keys: &[String],
    dense_keys: &[String],
    defaults: &[Tensor],
) -> Result<Vec<Tensor>> {
    let records = strings(serialized, "serialized")?;
    let (nd, ns) = (cfg.dense_types.len(), cfg.sparse_types.len());
    if dense_keys.len() != nd || sparse_keys.len() != ns || defaults.len() != nd {
        return Err(Error::invalid_argument(format!(
            "Expected {nd} dense keys and defaults and {ns} sparse keys (from the attrs), got {} dense keys, {} defaults and {} sparse keys",
            dense_keys.len(),
            defaults.len(),
            sparse_keys.len()
        )));
    }
    if !names.is_empty() && names.len() != records.len() {
        return Err(Error::invalid_argument(format!(
            "Expected len(names) == len(serialized), but got: {} vs. {}",
            names.len(),
            records.len()
        )));
    }
    for (d, def) in defaults.iter().enumerate() {
        if def.num_elements() > 0 && def.shape() != cfg.dense_shapes[d].as_slice() {
            return Err(Error::invalid_argument(format!(
                "def_value[{d}].shape() == {} is not compatible with dense_shapes_[{d}] == {}",
                fmt_dims(def.shape()).replace(", ", ","),
                fmt_dims(&cfg.dense_shapes[d]).replace(", ", ",")
            )));
        }
    }
    let name_of = |i: usize| names.get(i).map_or("<unknown>".to_string(), |n| String::from_utf8_lossy(n).into_owned());
    let mut dense: Vec<Values> = cfg.dense_types.iter().map(|&t| Values::new(t)).collect();
    let mut sparse: Vec<(Values, Vec<i64>, usize)> =
        cfg.sparse_types.iter().map(|&t| (Values::new(t), Vec::new(), 0)).collect();
    for (i, rec) in records.iter().enumerate() {
        let ex = Example::decode(rec.as_slice()).map_err(|_| {
            Error::invalid_argument(format!("Could not parse example input, value: '{}'", String::from_utf8_lossy(rec)))
        })?;
        let features: BTreeMap<String, crate::format::proto::Feature> =
            ex.features.map(|f| f.feature).unwrap_or_default();
        let found = |key: &str| features.get(key).and_then(|f| f.kind.as_ref());
        for d in 0..nd {
            let (key, want) = (&dense_keys[d], cfg.dense_types[d]);
            let n: usize = cfg.dense_shapes[d].iter().product();
            match found(key) {
                Some(k) => {
                    let (got, len) = kind_of(k);
                    if got != want {
                        return Err(Error::invalid_argument(format!(
                            "Name: {}, Key: {key}, Index: {i}.  Data types don't match. Data type: {} but expected type: {}",
                            name_of(i),
                            type_name(got),
                            type_name(want)
                        )));
                    }
                    if len != n {
                        let what = if want == DType::String { "bytes" } else { type_name(want) };
                        return Err(Error::invalid_argument(format!(
                            "Name: {}, Key: {key}, Index: {i}.  Number of {what} values != expected.  Values size: {len} but output shape: {}",
                            name_of(i),
                            fmt_dims(&cfg.dense_shapes[d]).replace(", ", ",")
                        )));
                    }
                    dense[d].push_feature(k);
                }
                None if defaults[d].num_elements() > 0 => dense[d].push_tensor(&defaults[d]),
                None => {
                    return Err(Error::invalid_argument(format!(
                        "Name: {}, Feature: {key} (data type: {}) is required but could not be found.",
                        name_of(i),
                        type_name(want)
                    )))
                }
            }
        }
        for (s, (values, indices, max_len)) in sparse.iter_mut().enumerate() {
            let (key, want) = (&sparse_keys[s], cfg.sparse_types[s]);
            let Some(k) = found(key) else { continue };
            let (got, len) = kind_of(k);
            if got != want {
                return Err(Error::invalid_argument(format!(
                    "Name: {}, Key: {key}, Index: {i}.  Data types don't match. Expected type: {}, Actual type: {}",
                    name_of(i),
                    type_name(want),
                    type_name(got)
                )));
            }
            values.push_feature(k);
            for j in 0..len {
                if serialized.rank() == 1 {
                    indices.push(i as i64);
                }
                indices.push(j as i64);
            }
            *max_len = (*max_len).max(len);
        }
    }
    let batch = serialized.shape().to_vec();
    let index_rank = batch.len() + 1;
    let mut out = Vec::with_capacity(3 * ns + nd);
    let mut sparse_values = Vec::with_capacity(ns);
    let mut sparse_shapes = Vec::with_capacity(ns);
    for (values, indices, max_len) in sparse {
        let count = indices.len() / index_rank;
        out.push(Tensor::new(&[count, index_rank], indices)?);
        sparse_values.push(values.into_tensor(&[count])?);
        let mut shape: Vec<i64> = batch.iter().map(|&b| b as i64).collect();
        shape.push(max_len as i64);
        sparse_shapes.push(Tensor::vector(shape));
    }
    out.extend(sparse_values);
    out.extend(sparse_shapes);
    for (values, s) in dense.into_iter().zip(&cfg.dense_shapes) {
        let mut shape = batch.clone();
        shape.extend_from_slice(s);
        out.push(values.into_tensor(&shape)?);
    }
    Ok(out)
}

/// `ParseExample(serialized, names, sparse_keys..., dense_keys..., dense_defaults...)`:
/// TensorFlow 1.x's `tf.parse_example`. `serialized` is a vector of `B` serialized
/// `tf.train.Example`s, `names` (empty, or one per example) name them in errors;
/// `Nsparse` sparse keys and `Ndense` dense keys are string scalars. Each dense feature `d`
/// (dtype `Tdense[d]`: float32, int64 or string; shape `dense_shapes[d]`, fixed) becomes a
/// `[B] + shape` output: the example's values, or `dense_defaults[d]` (of that shape) when
/// the example lacks the feature. Each sparse feature (dtype `sparse_types[s]`) becomes
/// `sparse_indices[s]` (`[N, 2]` int64: example, position), `sparse_values[s]` (`[N]`) and
/// `sparse_shapes[s]` (`[B, longest list]`). Outputs in that order: all indices, all
/// values, all shapes, then the dense values.
///
/// Errors (`InvalidArgument`, TensorFlow's words): `Could not parse example input, value:
/// '...'`; `Name: <unknown>, Feature: age (data type: int64) is required but could not be
/// found.` (a dense feature without a default); `Name: <unknown>, Key: w, Index: 0.  Number
/// of float values != expected.  Values size: 2 but output shape: [3]`; `... Data types
/// don't match. ...`; a default of another shape (`def_value[0].shape() == [] is not
/// compatible with dense_shapes_[0] == [2]`). `Unimplemented`, when the session prepares the
/// node (graphs holding one import), for a dense shape with unknown dimensions
/// (`FixedLenSequenceFeature`).
pub struct ParseExample;
impl RegisteredOp for ParseExample {
    fn op_type(&self) -> &'static str {
        "ParseExample"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let cfg = Config::of(ctx.node, false)?;
        let s = ctx.shape(0);
        if s.rank().is_some_and(|r| r != 1) {
            return Err(Error::invalid_argument(format!(
                "Shape must be rank 1 but is rank {} (ParseExample's serialized, of shape {s})",
                s.rank().unwrap_or(0)
            )));
        }
        Ok(cfg.outputs(&Shape::partial(&[s.dim(0)])))
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ParseKernel { cfg: Config::of(node, false)?.supported(node)? }))
    }
}

/// `ParseExampleV2(serialized, names, sparse_keys, dense_keys, ragged_keys,
/// dense_defaults...)`: what `tf.io.parse_example` builds. As `ParseExample`, with the keys
/// as string vectors, the sparse count in `num_sparse`, and `serialized` a vector `[B]` or a
/// scalar (one example: the dense outputs have the feature's shape, sparse indices `[N, 1]`,
/// sparse shapes `[longest list]`). Errors as `ParseExample`'s, plus `InvalidArgument` for a
/// `serialized` of rank above 1 and `Unimplemented` for ragged features (`ragged_keys`).
pub struct ParseExampleV2;
impl RegisteredOp for ParseExampleV2 {
    fn op_type(&self) -> &'static str {
        "ParseExampleV2"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        let cfg = Config::of(ctx.node, true)?;
        let s = ctx.shape(0);
        if let Some(r) = s.rank().filter(|&r| r > 1) {
            return Err(Error::invalid_argument(format!(
                "Shape must be at most rank 1 but is rank {r} (ParseExampleV2's serialized, of shape {s})"
            )));
        }
        Ok(cfg.outputs(s))
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(ParseKernel { cfg: Config::of(node, true)?.supported(node)? }))
    }
}

/// The prepared `ParseExample`/`ParseExampleV2`: the feature configuration of its attrs.
struct ParseKernel {
    cfg: Config,
}

impl Kernel for ParseKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let cfg = &self.cfg;
        let (ns, nd) = (cfg.sparse_types.len(), cfg.dense_types.len());
        let serialized = ctx.input(0);
        let names = strings(ctx.input(1), "names")?;
        let (sparse_keys, dense_keys, defaults) = if cfg.v2 {
            if serialized.rank() > 1 {
                return Err(Error::invalid_argument(format!(
                    "Expected serialized to be a scalar or vector, got shape: {}",
                    fmt_dims(serialized.shape()).replace(", ", ",")
                )));
            }
            let ragged = keys(&ctx.inputs[4..5], "ragged_keys")?;
            if !ragged.is_empty() {
                return Err(Error::unimplemented(format!(
                    "ParseExampleV2 of the ragged features {ragged:?} is not supported"
                )));
            }
            (keys(&ctx.inputs[2..3], "sparse_keys")?, keys(&ctx.inputs[3..4], "dense_keys")?, &ctx.inputs[5..])
        } else {
            if serialized.rank() != 1 {
                return Err(Error::invalid_argument(format!(
                    "Expected serialized to be a vector, got shape: {}",
                    fmt_dims(serialized.shape()).replace(", ", ",")
                )));
            }
            (
                keys(&ctx.inputs[2..2 + ns], "sparse_keys")?,
                keys(&ctx.inputs[2 + ns..2 + ns + nd], "dense_keys")?,
                &ctx.inputs[2 + ns + nd..],
            )
        };
        parse(cfg, serialized, names, &sparse_keys, &dense_keys, defaults)
    }
}

/// A fixed-shape dense feature to parse (`tf.io.FixedLenFeature(shape, dtype,
/// default_value)`): its key, dtype (float32, int64 or string), shape, and default (`None`:
/// the feature is required).
#[derive(Debug, Clone)]
pub struct FixedLenFeature {
    /// The feature's key in the examples.
    pub key: String,
    /// float32, int64 or string.
    pub dtype: DType,
    /// The fixed shape of one example's values.
    pub shape: Vec<usize>,
    /// The value for examples lacking the feature, of `shape`; `None`: required.
    pub default: Option<Tensor>,
}

/// `tf.io.parse_example(serialized, features)` for fixed-shape dense features: an op
/// `ParseExampleV2` under the name scope `ParseExample` (default name `ParseExampleV2`), the
/// features sorted by key as TensorFlow orders them, each default a `Const` (`Const` for a
/// required feature's empty default, `key_<key>` otherwise). Returns one output per feature,
/// in `features`' order, of shape `[B] + shape` for a vector `serialized` (`shape` for a
/// scalar). Errors: `InvalidArgument` for a dtype other than float32, int64 and string or a
/// default of another dtype or shape; when run, as [`ParseExampleV2`]'s.
pub fn parse_example(s: &Scope, serialized: &Output, features: &[FixedLenFeature]) -> Result<Vec<Output>> {
    let scope = s.name_scope("ParseExample");
    let mut order: Vec<usize> = (0..features.len()).collect();
    order.sort_by(|&a, &b| features[a].key.cmp(&features[b].key));
    let mut defaults = Vec::with_capacity(features.len());
    for &i in &order {
        let f = &features[i];
        if !matches!(f.dtype, DType::Float | DType::Int64 | DType::String) {
            return Err(Error::invalid_argument(format!(
                "feature {:?} has dtype {}; parse_example reads float32, int64 and string features",
                f.key, f.dtype
            )));
        }
        let (name, value) = match &f.default {
            None => ("Const".to_string(), Tensor::try_zeros(f.dtype, &[0])?),
            Some(d) if d.dtype() == f.dtype && d.shape() == f.shape.as_slice() => (format!("key_{}", f.key), d.clone()),
            Some(d) => {
                return Err(Error::invalid_argument(format!(
                    "the default of feature {:?} is a {} tensor of shape {}, but the feature is {} {}",
                    f.key,
                    d.dtype(),
                    fmt_dims(d.shape()),
                    f.dtype,
                    fmt_dims(&f.shape)
                )))
            }
        };
        defaults.push(super::constant(&scope.named(&name), value)?);
    }
    let (op, inner) = scope.op_scope("ParseExampleV2");
    let vector = |name: &str, v: Vec<Vec<u8>>| super::constant(&inner.named(name), Tensor::strings(&[v.len()], v)?);
    let names = vector("names", vec![])?;
    let sparse_keys = vector("sparse_keys", vec![])?;
    let dense_keys = vector("dense_keys", order.iter().map(|&i| features[i].key.clone().into_bytes()).collect())?;
    let ragged_keys = vector("ragged_keys", vec![])?;
    let parsed = op
        .op("ParseExampleV2", "ParseExampleV2")
        .input(serialized)
        .input(&names)
        .input(&sparse_keys)
        .input(&dense_keys)
        .input(&ragged_keys)
        .inputs(&defaults)
        .attr("Tdense", AttrValue::ListType(order.iter().map(|&i| features[i].dtype).collect()))
        .attr("num_sparse", 0i64)
        .attr("sparse_types", AttrValue::ListType(vec![]))
        .attr("ragged_value_types", AttrValue::ListType(vec![]))
        .attr("ragged_split_types", AttrValue::ListType(vec![]))
        .attr("dense_shapes", AttrValue::ListShape(order.iter().map(|&i| Shape::known(&features[i].shape)).collect()))
        .build()?;
    let mut out = vec![None; features.len()];
    for (pos, &i) in order.iter().enumerate() {
        out[i] = Some(parsed.output(pos)?);
    }
    Ok(out.into_iter().flatten().collect())
}
