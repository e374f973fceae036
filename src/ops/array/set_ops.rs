//! The set ops of `tf.sets` (TensorFlow's `set_kernels.cc`): `DenseToDenseSetOperation`,
//! `DenseToSparseSetOperation` and `SetSize`. A set is the values along the last dimension
//! of a dense tensor, or the values of one group (all index columns but the last) of a sparse
//! tensor; duplicates count once. Results are sparse tensors, each group's values sorted.

use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Operation, Output, Scope};
use crate::ops::{InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Storage, Tensor};
use std::collections::{BTreeSet, HashSet};

pub(in crate::ops) static DEFS: &[&dyn RegisteredOp] =
    &[&DenseToDenseSetOperation, &DenseToSparseSetOperation, &SetSize];

/// The dtypes TensorFlow's set kernels take.
const SET_TYPES: &[DType] =
    &[DType::Int8, DType::Int16, DType::Int32, DType::Int64, DType::UInt8, DType::UInt16, DType::String];

/// One set element: every integer dtype as i64, strings as bytes (ordered as TensorFlow's
/// `btree_set`: numerically, bytewise).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Key {
    I(i64),
    S(Vec<u8>),
}

fn keys(t: &Tensor) -> Result<Vec<Key>> {
    Ok(match t.storage() {
        Storage::I8(v) => v.iter().map(|&x| Key::I(x.into())).collect(),
        Storage::I16(v) => v.iter().map(|&x| Key::I(x.into())).collect(),
        Storage::I32(v) => v.iter().map(|&x| Key::I(x.into())).collect(),
        Storage::I64(v) => v.iter().map(|&x| Key::I(x)).collect(),
        Storage::U8(v) => v.iter().map(|&x| Key::I(x.into())).collect(),
        Storage::U16(v) => v.iter().map(|&x| Key::I(x.into())).collect(),
        Storage::Str(v) => v.iter().map(|x| Key::S(x.clone())).collect(),
        _ => {
            return Err(Error::invalid_argument(format!(
                "set ops take int8, int16, int32, int64, uint8, uint16 or string, not {}",
                t.dtype()
            )))
        }
    })
}

/// A vector of `dtype` holding `keys`.
fn keys_tensor(dtype: DType, keys: Vec<Key>) -> Result<Tensor> {
    let n = keys.len();
    let ints = || keys.iter().map(|k| if let Key::I(v) = k { *v } else { 0 });
    match dtype {
        DType::Int8 => Tensor::new(&[n], ints().map(|v| v as i8).collect()),
        DType::Int16 => Tensor::new(&[n], ints().map(|v| v as i16).collect()),
        DType::Int32 => Tensor::new(&[n], ints().map(|v| v as i32).collect()),
        DType::Int64 => Tensor::new(&[n], ints().collect::<Vec<i64>>()),
        DType::UInt8 => Tensor::new(&[n], ints().map(|v| v as u8).collect()),
        DType::UInt16 => Tensor::new(&[n], ints().map(|v| v as u16).collect()),
        _ => Tensor::strings(&[n], keys.into_iter().map(|k| if let Key::S(s) = k { s } else { Vec::new() }).collect()),
    }
}

/// `[1,2,3]`, as TensorFlow's `absl::StrJoin` messages write dims and indices.
fn joined<T: std::fmt::Display>(v: &[T]) -> String {
    format!("[{}]", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","))
}

/// A partial shape as TensorFlow's shape functions print it: `[2,?]`.
fn debug_shape(s: &Shape) -> String {
    match s.dims() {
        None => "?".into(),
        Some(d) => format!(
            "[{}]",
            d.iter().map(|x| x.map_or("?".to_string(), |v| v.to_string())).collect::<Vec<_>>().join(",")
        ),
    }
}

/// The `set_operation` attr.
#[derive(Clone, Copy)]
enum SetOp {
    AMinusB,
    BMinusA,
    Intersection,
    Union,
}

fn set_op(node: &Node) -> Result<SetOp> {
    let Some(AttrValue::String(s)) = node.attrs.get("set_operation") else {
        return Err(Error::invalid_argument("Missing set_operation."));
    };
    let s = String::from_utf8_lossy(s).to_lowercase();
    Ok(match s.as_str() {
        "a-b" => SetOp::AMinusB,
        "b-a" => SetOp::BMinusA,
        "intersection" => SetOp::Intersection,
        "union" => SetOp::Union,
        _ => return Err(Error::invalid_argument(format!("Invalid set_operation {s}."))),
    })
}

fn apply(op: SetOp, a: &HashSet<&Key>, b: &HashSet<&Key>) -> BTreeSet<Key> {
    let diff =
        |x: &HashSet<&Key>, y: &HashSet<&Key>| x.iter().filter(|k| !y.contains(*k)).map(|k| (*k).clone()).collect();
    match op {
        SetOp::AMinusB => diff(a, b),
        SetOp::BMinusA => diff(b, a),
        SetOp::Intersection => a.iter().filter(|k| b.contains(*k)).map(|k| (*k).clone()).collect(),
        SetOp::Union => a.iter().chain(b.iter()).map(|k| (*k).clone()).collect(),
    }
}

/// A sparse input (indices, values, shape) checked as TensorFlow's `SparseTensorFromContext`.
struct SparseSet {
    /// `[n, rank]` row-major.
    indices: Vec<i64>,
    values: Vec<Key>,
    shape: Vec<i64>,
}

impl SparseSet {
    fn from_inputs(ind: &Tensor, vals: &Tensor, shape: &Tensor, validate: bool) -> Result<SparseSet> {
        if shape.rank() != 1 {
            return Err(Error::invalid_argument("Shape must be a 1D tensor."));
        }
        let dims = shape.to_vec::<i64>()?;
        if let Some(d) = dims.iter().find(|&&d| d < 0) {
            return Err(Error::invalid_argument(format!("Dimension {d} must be >= 0")));
        }
        if dims.len() < 2 {
            return Err(Error::invalid_argument(format!("Invalid rank {}.", dims.len())));
        }
        if vals.rank() != 1 {
            return Err(Error::invalid_argument(format!("vals must be a vec, but got: {}", joined(vals.shape()))));
        }
        if ind.shape().first() != vals.shape().first() {
            return Err(Error::invalid_argument(format!(
                "indices and values rows (indexing dimension) must match. (indices = {}, values = {})",
                ind.shape().first().copied().unwrap_or(0),
                vals.shape()[0]
            )));
        }
        if ind.rank() != 2 {
            return Err(Error::invalid_argument(format!("indices must be a matrix, but got: {}", joined(ind.shape()))));
        }
        let rank = ind.shape()[1];
        if rank != dims.len() {
            return Err(Error::invalid_argument("Order length must be SparseTensor rank."));
        }
        let indices = ind.to_vec::<i64>()?;
        if validate {
            for i in 0..vals.shape()[0] {
                let at = &indices[i * rank..(i + 1) * rank];
                if at.iter().zip(&dims).any(|(&x, &d)| x < 0 || x >= d) {
                    return Err(Error::invalid_argument(format!(
                        "indices[{i}] = {} is out of bounds: need 0 <= index < {}",
                        joined(at),
                        joined(&dims)
                    )));
                }
                if i > 0 {
                    match indices[(i - 1) * rank..i * rank].cmp(at) {
                        std::cmp::Ordering::Greater => return Err(Error::invalid_argument(format!(
                            "indices[{i}] = {} is out of order. Many sparse ops require sorted indices.\n    Use `tf.sparse.reorder` to create a correctly ordered copy.\n\n",
                            joined(at)
                        ))),
                        std::cmp::Ordering::Equal => {
                            return Err(Error::invalid_argument(format!("indices[{i}] = {} is repeated", joined(at))))
                        }
                        std::cmp::Ordering::Less => {}
                    }
                }
            }
        }
        Ok(SparseSet { indices, values: keys(vals)?, shape: dims })
    }

    fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The groups as TensorFlow's `SparseTensor::group` walks them: runs of consecutive
    /// entries with equal group indices, each (group indices, its values), every index
    /// checked against the shape as TensorFlow's `CheckGroup` does (`Internal`).
    fn groups(&self) -> Result<Vec<(Vec<i64>, Vec<&Key>)>> {
        let r = self.rank();
        let mut out: Vec<(Vec<i64>, Vec<&Key>)> = Vec::new();
        let mut in_group = 0usize;
        for (i, v) in self.values.iter().enumerate() {
            let at = &self.indices[i * r..(i + 1) * r];
            let g = &at[..r - 1];
            match out.last_mut() {
                Some((k, vs)) if k.as_slice() == g => vs.push(v),
                _ => {
                    out.push((g.to_vec(), vec![v]));
                    in_group = 0;
                }
            }
            for (j, (&x, &d)) in at.iter().zip(&self.shape).enumerate() {
                if d <= 0 {
                    return Err(Error::internal(format!("Invalid dim_size[{j}] = {d}.")));
                }
                if x >= d {
                    return Err(Error::internal(format!("indices[{in_group}, {j}] expected < {d}, got {x}.")));
                }
            }
            in_group += 1;
        }
        Ok(out)
    }
}

/// The group shape (all dims but the last) of a set input's shape; TensorFlow's errors.
fn group_shape(shape: &[i64]) -> Result<Vec<i64>> {
    if shape.len() < 2 {
        return Err(Error::invalid_argument(format!("Shape {} has rank {} < 2", joined(shape), shape.len())));
    }
    Ok(shape[..shape.len() - 1].to_vec())
}

fn groups_match(a: &[i64], b: &[i64]) -> Result<Vec<i64>> {
    let (ga, gb) = (group_shape(a)?, group_shape(b)?);
    if ga != gb {
        return Err(Error::invalid_argument(format!("Mismatched shapes {} vs {}", joined(&ga), joined(&gb))));
    }
    Ok(ga)
}

fn unravel(mut flat: i64, shape: &[i64]) -> Vec<i64> {
    let mut out = vec![0; shape.len()];
    for (o, &d) in out.iter_mut().zip(shape).rev() {
        *o = flat % d;
        flat /= d;
    }
    out
}

/// The result sparse tensor: `(group indices, sorted set)` in row-major group order.
fn output(dtype: DType, group: &[i64], sets: Vec<(Vec<i64>, BTreeSet<Key>)>) -> Result<Vec<Tensor>> {
    let rank = group.len() + 1;
    let n: usize = sets.iter().map(|(_, s)| s.len()).sum();
    let max = sets.iter().map(|(_, s)| s.len()).max().unwrap_or(0);
    let mut indices = Vec::with_capacity(n * rank);
    let mut values = Vec::with_capacity(n);
    for (g, set) in sets {
        for (j, v) in set.into_iter().enumerate() {
            indices.extend_from_slice(&g);
            indices.push(j as i64);
            values.push(v);
        }
    }
    let mut shape = group.to_vec();
    shape.push(max as i64);
    Ok(vec![Tensor::new(&[n, rank], indices)?, keys_tensor(dtype, values)?, Tensor::new(&[rank], shape)?])
}

fn dims_i64(t: &Tensor) -> Vec<i64> {
    t.shape().iter().map(|&d| d as i64).collect()
}

/// The dense groups of `t` (last dimension `len`): group `g`'s values.
fn dense_group(k: &[Key], len: usize, g: usize) -> HashSet<&Key> {
    k[g * len..(g + 1) * len].iter().collect()
}

/// The static rank check both dense-input shape functions start with.
fn rank_at_least_2(s: &Shape) -> Result<()> {
    match s.rank() {
        Some(r) if r < 2 => Err(Error::invalid_argument(format!("Shape must be at least rank 2 but is rank {r}"))),
        _ => Ok(()),
    }
}

fn set_outputs(t: DType, rank: Option<usize>) -> Vec<(DType, Shape)> {
    vec![
        (DType::Int64, Shape::partial(&[None, rank])),
        (t, Shape::partial(&[None])),
        (DType::Int64, Shape::partial(&[rank])),
    ]
}

/// `DenseToDenseSetOperation(set1, set2)` (attrs `set_operation`: `"a-b"`, `"b-a"`,
/// `"intersection"` or `"union"`, any case; `validate_indices`, unused here; `T`: int8,
/// int16, int32, int64, uint8, uint16 or string): for `set1` and `set2` of rank `n >= 2`
/// with equal first `n-1` dims, the operation applied per group to the values along the
/// last dimension. Outputs the result as a sparse tensor: `result_indices [k, n]` (int64),
/// `result_values [k]` (`T`, each group's values sorted), `result_shape [n]` (the group
/// dims, then the largest result set). Errors (TensorFlow's): rank below 2 (`Shape [..] has
/// rank r < 2`), mismatched group dims (`Mismatched shapes [..] vs [..]`), an unknown
/// operation (`Invalid set_operation x.`), all `InvalidArgument`. No gradient.
pub struct DenseToDenseSetOperation;

impl RegisteredOp for DenseToDenseSetOperation {
    fn op_type(&self) -> &'static str {
        "DenseToDenseSetOperation"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(2)?;
        let t = ctx.check_dtype(0, SET_TYPES)?;
        ctx.same_dtypes()?;
        let (s0, s1) = (ctx.shape(0), ctx.shape(1));
        rank_at_least_2(s0)?;
        let rank = match (s0.dims(), s1.dims()) {
            (Some(a), Some(b)) => {
                if a.len() != b.len() {
                    return Err(Error::invalid_argument(format!(
                        "Shape must be rank {} but is rank {}",
                        a.len(),
                        b.len()
                    )));
                }
                let n = a.len() - 1;
                for i in 0..n {
                    if let (Some(x), Some(y)) = (a[i], b[i]) {
                        if x != y {
                            return Err(Error::invalid_argument(format!(
                                "Dimension {i} in both shapes must be equal, but are {x} and {y}. Shapes are {} and {}.",
                                debug_shape(&Shape::partial(&a[..n])),
                                debug_shape(&Shape::partial(&b[..n]))
                            )));
                        }
                    }
                }
                Some(a.len())
            }
            (Some(a), None) => Some(a.len()),
            (None, _) => {
                rank_at_least_2(s1)?;
                s1.rank()
            }
        };
        Ok(set_outputs(t, rank))
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(DenseDense(set_op(node)?)))
    }
}

struct DenseDense(SetOp);

impl Kernel for DenseDense {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let (a, b) = (ctx.input(0), ctx.input(1));
        let group = groups_match(&dims_i64(a), &dims_i64(b))?;
        let (ka, kb) = (keys(a)?, keys(b)?);
        let (la, lb) = (*a.shape().last().unwrap_or(&0), *b.shape().last().unwrap_or(&0));
        let n: i64 = group.iter().product();
        let mut sets = Vec::new();
        for g in 0..n as usize {
            let set = apply(self.0, &dense_group(&ka, la, g), &dense_group(&kb, lb, g));
            if !set.is_empty() {
                sets.push((unravel(g as i64, &group), set));
            }
        }
        output(a.dtype(), &group, sets)
    }
}

/// `DenseToSparseSetOperation(set1, set2_indices, set2_values, set2_shape)` (attrs as
/// [`DenseToDenseSetOperation`]'s; `validate_indices`, default true, checks `set2`'s
/// indices are in bounds, sorted and unique): the operation per group of a dense `set1`
/// and a sparse `set2` (a group missing from `set2` is empty). Outputs as
/// [`DenseToDenseSetOperation`]. Errors (TensorFlow's, `InvalidArgument`): those of the
/// dense op, `set2`'s rank below 2 (`Invalid rank r.`), mismatched indices and values,
/// invalid indices (`indices[i] = [..] is out of bounds/out of order/repeated`). No gradient.
pub struct DenseToSparseSetOperation;

impl RegisteredOp for DenseToSparseSetOperation {
    fn op_type(&self) -> &'static str {
        "DenseToSparseSetOperation"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(4)?;
        let t = ctx.check_dtype(0, SET_TYPES)?;
        ctx.check_type_attr("T", 0)?;
        ctx.check_type_attr("T", 2)?;
        for i in [1, 3] {
            ctx.check_dtype(i, &[DType::Int64])?;
        }
        for (i, r) in [(1, 2), (2, 1), (3, 1)] {
            if let Some(got) = ctx.shape(i).rank().filter(|&g| g != r) {
                return Err(Error::invalid_argument(format!("Shape must be rank {r} but is rank {got}")));
            }
        }
        let srank = ctx.shape(3).dims().and_then(|d| d[0]);
        rank_at_least_2(ctx.shape(0))?;
        let rank = match (ctx.shape(0).rank(), srank) {
            (Some(a), Some(b)) if a != b => {
                return Err(Error::invalid_argument(format!("Dimension must be {a} but is {b}")));
            }
            (a, b) => a.or(b),
        };
        Ok(set_outputs(t, rank))
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(DenseSparse(set_op(node)?, node.attr_bool_or("validate_indices", true)?)))
    }
}

struct DenseSparse(SetOp, bool);

impl Kernel for DenseSparse {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let a = ctx.input(0);
        let b = SparseSet::from_inputs(ctx.input(1), ctx.input(2), ctx.input(3), self.1)?;
        let group = groups_match(&dims_i64(a), &b.shape)?;
        let ka = keys(a)?;
        let la = *a.shape().last().unwrap_or(&0);
        let bg = b.groups()?;
        let mut next = bg.iter().peekable();
        let n: i64 = group.iter().product();
        let mut sets = Vec::new();
        for g in 0..n as usize {
            let gi = unravel(g as i64, &group);
            let mut set2 = HashSet::new();
            if let Some((k, vs)) = next.peek() {
                if *k == gi {
                    set2 = vs.iter().copied().collect();
                    next.next();
                }
            }
            let set = apply(self.0, &dense_group(&ka, la, g), &set2);
            if !set.is_empty() {
                sets.push((gi, set));
            }
        }
        output(a.dtype(), &group, sets)
    }
}

/// `SetSize(set_indices, set_values, set_shape)` (attrs `validate_indices`, default true;
/// `T` as [`DenseToDenseSetOperation`]'s): the number of distinct values in each group of
/// a sparse tensor of rank `n >= 2`, an int32 tensor of its first `n-1` dims (0 for an
/// empty group). Without `validate_indices`, unsorted indices are grouped in runs as
/// TensorFlow does (a later run of a group overwrites its size). Errors (TensorFlow's,
/// `InvalidArgument`): as [`DenseToSparseSetOperation`]'s `set2`. No gradient.
pub struct SetSize;

impl RegisteredOp for SetSize {
    fn op_type(&self) -> &'static str {
        "SetSize"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(3)?;
        ctx.check_dtype(1, SET_TYPES)?;
        ctx.check_type_attr("T", 1)?;
        for i in [0, 2] {
            ctx.check_dtype(i, &[DType::Int64])?;
        }
        Ok(vec![(DType::Int32, Shape::unknown())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(SetSizeKernel(node.attr_bool_or("validate_indices", true)?)))
    }
}

struct SetSizeKernel(bool);

impl Kernel for SetSizeKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let s = SparseSet::from_inputs(ctx.input(0), ctx.input(1), ctx.input(2), self.0)?;
        let group = group_shape(&s.shape)?;
        let dims: Vec<usize> = group.iter().map(|&d| d as usize).collect();
        let total: usize = dims.iter().product();
        let mut out = vec![0i32; total];
        for (g, vs) in s.groups()? {
            let flat = g.iter().zip(&group).try_fold(0i64, |acc, (&x, &d)| (x >= 0).then_some(acc * d + x));
            match flat.filter(|&f| (f as usize) < total) {
                Some(f) => out[f as usize] = vs.iter().collect::<HashSet<_>>().len() as i32,
                None => {
                    return Err(Error::invalid_argument(format!(
                        "Index out of range, {} vs {}",
                        joined(&g),
                        joined(&group)
                    )))
                }
            }
        }
        Ok(vec![Tensor::new(&dims, out)?])
    }
}

/// `tf.sets.difference` / `intersection` / `union` of two dense tensors: a
/// `DenseToDenseSetOperation` node (see [`DenseToDenseSetOperation`]) with `set_operation`
/// `"a-b"`, `"b-a"`, `"intersection"` or `"union"`; its three outputs are the result's
/// indices, values and dense shape. Errors: `InvalidArgument` for dtypes or static shapes
/// TensorFlow refuses.
pub fn dense_to_dense_set_operation(s: &Scope, set1: &Output, set2: &Output, set_operation: &str) -> Result<Operation> {
    s.op("DenseToDenseSetOperation", "DenseToDenseSetOperation")
        .input(set1)
        .input(set2)
        .attr("T", set1.dtype())
        .attr("set_operation", set_operation)
        .attr("validate_indices", true)
        .build()
}

/// `tf.sets.*` of a dense `set1` and a sparse `set2` (indices, values, shape): a
/// `DenseToSparseSetOperation` node (see [`DenseToSparseSetOperation`]). Errors:
/// `InvalidArgument` for dtypes or static shapes TensorFlow refuses.
pub fn dense_to_sparse_set_operation(
    s: &Scope,
    set1: &Output,
    set2: (&Output, &Output, &Output),
    set_operation: &str,
) -> Result<Operation> {
    s.op("DenseToSparseSetOperation", "DenseToSparseSetOperation")
        .input(set1)
        .input(set2.0)
        .input(set2.1)
        .input(set2.2)
        .attr("T", set1.dtype())
        .attr("set_operation", set_operation)
        .attr("validate_indices", true)
        .build()
}

/// `tf.sets.size` of a sparse tensor (indices, values, shape): a `SetSize` node (see
/// [`SetSize`]), int32. Errors: `InvalidArgument` for dtypes TensorFlow refuses.
pub fn set_size(s: &Scope, indices: &Output, values: &Output, shape: &Output) -> Result<Output> {
    s.op("SetSize", "SetSize")
        .input(indices)
        .input(values)
        .input(shape)
        .attr("T", values.dtype())
        .attr("validate_indices", true)
        .build()?
        .output(0)
}
