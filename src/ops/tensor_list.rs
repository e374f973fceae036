//! TensorFlow's TensorList ops (`tensorflow/core/ops/list_ops.cc`, kernels in
//! `list_kernels.h/.cc`): a list of tensors as one scalar `variant` tensor
//! ([`crate::tensor::TensorList`]). Unlike the TensorArray family, a list is a *value*, not
//! a resource: every op that changes a list outputs a new one (copy on write: in place when
//! the input list is held by nobody else, as TensorFlow's `ForwardInputOrCreateNewList`).
//! TF2's `tf.TensorArray`, Keras' RNN loops and `while_v2`'s gradient accumulators are
//! made of these ops.
//!
//! Files: `create.rs` (EmptyTensorList, TensorListReserve, TensorListFromTensor,
//! TensorListSplit, TensorListScatter and V2), `access.rs` (Length, ElementShape, GetItem,
//! SetItem, PushBack, PopBack, Resize), `read_all.rs` (Stack, Gather, ConcatV2,
//! ScatterIntoExistingList), `build.rs` (the builder functions the gradients use too).
//! Gradients are TensorFlow's (`tensorflow/python/ops/list_ops.py`).

mod access;
mod build;
mod create;
mod read_all;

pub use build::*;

use crate::error::{Error, Result};
use crate::ops::{InferCtx, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Storage, Tensor, TensorList};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[
    &create::EmptyTensorList,
    &create::TensorListReserve,
    &create::TensorListFromTensor,
    &create::TensorListSplit,
    &create::TensorListScatterV2,
    &create::TensorListScatter,
    &access::TensorListLength,
    &access::TensorListElementShape,
    &access::TensorListGetItem,
    &access::TensorListSetItem,
    &access::TensorListPushBack,
    &access::TensorListPopBack,
    &access::TensorListResize,
    &read_all::TensorListStack,
    &read_all::TensorListGather,
    &read_all::TensorListConcatV2,
    &read_all::TensorListScatterIntoExistingList,
];

/// A partial shape as TensorFlow's `PartialTensorShape::DebugString` writes it: `[2,?]`,
/// `<unknown>`.
pub(crate) fn tf_shape(s: &Shape) -> String {
    match s.dims() {
        None => "<unknown>".to_string(),
        Some(d) => {
            let parts: Vec<String> = d.iter().map(|x| x.map_or("?".to_string(), |v| v.to_string())).collect();
            format!("[{}]", parts.join(","))
        }
    }
}

/// A concrete shape as TensorFlow's `TensorShape::DebugString`: `[4,3]`.
pub(crate) fn tf_dims(d: &[usize]) -> String {
    tf_shape(&Shape::known(d))
}

/// TensorFlow's `TensorShapeFromTensor`: an element-shape input (int32 or int64) as a
/// partial shape: the scalar -1 is an unknown rank, -1 in a vector an unknown dimension.
pub(crate) fn shape_from_tensor(t: &Tensor) -> Result<Shape> {
    if !matches!(t.dtype(), DType::Int32 | DType::Int64) {
        return Err(Error::invalid_argument(format!("Expected an int32 or int64 shape tensor; found {}", t.dtype())));
    }
    let v: Vec<i64> = t.to_f64_vec()?.iter().map(|&x| x as i64).collect();
    match t.rank() {
        0 if v[0] == -1 => Ok(Shape::unknown()),
        0 => Err(Error::invalid_argument(
            "The only valid scalar shape tensor is the fully unknown shape specified as -1.",
        )),
        1 => v
            .iter()
            .map(|&d| match d {
                -1 => Ok(None),
                d if d >= 0 => Ok(Some(d as usize)),
                d => Err(Error::invalid_argument(format!("Dimension {d} must be >= -1"))),
            })
            .collect::<Result<Vec<_>>>()
            .map(Shape::from),
        r => Err(Error::invalid_argument(format!("Shape must be at most rank 1 but is rank {r}"))),
    }
}

/// TensorFlow's `PartialTensorShape::MergeWith`. Errors: `InvalidArgument` as TensorFlow's.
pub(crate) fn merge_shapes(a: &Shape, b: &Shape) -> Result<Shape> {
    if let (Some(x), Some(y)) = (a.rank(), b.rank()) {
        if x != y {
            return Err(Error::invalid_argument(format!(
                "PartialTensorShape: Incompatible ranks during merge: {x} vs. {y}"
            )));
        }
    }
    a.merge(b).ok_or_else(|| {
        Error::invalid_argument(format!("Incompatible shapes during merge: {} vs. {}", tf_shape(a), tf_shape(b)))
    })
}

/// TensorFlow's `GetElementShapeFromInput`: the element-shape input `i` merged with the
/// list's own element shape.
pub(crate) fn element_shape_input(ctx: &KernelCtx, list: &TensorList, i: usize) -> Result<Shape> {
    merge_shapes(&shape_from_tensor(ctx.input(i))?, &list.element_shape)
}

/// The partial shape an element-shape input gives at graph-build time (unknown when it is
/// not a constant).
pub(crate) fn static_element_shape(ctx: &InferCtx, i: usize) -> Shape {
    ctx.const_input(i).and_then(|t| shape_from_tensor(&t).ok()).unwrap_or_else(Shape::unknown)
}

/// Errors unless the op's `element_dtype` attr is the list's (TensorFlow's "Invalid data
/// types; op elements float but list elements int32").
pub(crate) fn check_element_dtype(op: DType, list: &TensorList) -> Result<()> {
    if op != list.element_dtype {
        return Err(Error::invalid_argument(format!(
            "Invalid data types; op elements {} but list elements {}",
            dtype_string(op),
            dtype_string(list.element_dtype)
        )));
    }
    Ok(())
}

/// TensorFlow's `DataTypeString` (`float`, `int32`, `variant`).
pub(crate) fn dtype_string(d: DType) -> &'static str {
    match d {
        DType::Float => "float",
        DType::Double => "double",
        DType::Half => "half",
        other => other.name(),
    }
}

/// A scalar int input as i64 (an index or a size). Errors: `InvalidArgument` naming `what`
/// when it is not a scalar.
pub(crate) fn scalar_int(t: &Tensor, what: &str) -> Result<i64> {
    if t.num_elements() != 1 {
        return Err(Error::invalid_argument(format!("{what} must be a scalar, but had shape: {}", tf_dims(t.shape()))));
    }
    Ok(t.to_f64_vec()?[0] as i64)
}

/// The element at `i`, or zeros of `shape` (which must then be fully defined; `what` is the
/// message when it is not) for an element not set.
pub(crate) fn element_or_zeros(list: &TensorList, i: usize, shape: &Shape, what: &str) -> Result<Tensor> {
    match &list.tensors[i] {
        Some(t) => Ok(t.clone()),
        None => {
            let dims = shape.to_vec().ok_or_else(|| Error::invalid_argument(what.to_string()))?;
            Tensor::try_zeros(list.element_dtype, &dims)
        }
    }
}

/// Merges `shape` with the shapes of the set elements at `indices` (TensorFlow's reads of a
/// list whose element shape is not fully defined).
pub(crate) fn merge_with_elements(
    list: &TensorList,
    indices: impl Iterator<Item = usize>,
    mut shape: Shape,
) -> Result<Shape> {
    if list.element_shape.is_fully_defined() {
        return Ok(shape);
    }
    for i in indices {
        if let Some(Some(t)) = list.tensors.get(i) {
            shape = merge_shapes(&shape, &Shape::known(t.shape()))?;
        }
    }
    Ok(shape)
}

/// The tensors `parts` (one dtype, each `elem` elements) one after the other, shaped `shape`.
pub(crate) fn join(parts: &[Tensor], shape: &[usize], dtype: DType) -> Result<Tensor> {
    let Some(first) = parts.first() else { return Tensor::try_zeros(dtype, shape) };
    macro_rules! cat {
        ($($v:ident),*) => {
            match first.storage() {
                $(Storage::$v(_) => {
                    let total = parts.iter().map(Tensor::num_elements).sum();
                    let mut out = crate::tensor::try_with_capacity(total, dtype)?;
                    for p in parts {
                        match p.storage() {
                            Storage::$v(x) => out.extend(x.iter().cloned()),
                            other => {
                                return Err(Error::invalid_argument(format!(
                                    "list elements of dtypes {} and {}",
                                    first.dtype(),
                                    other.dtype()
                                )))
                            }
                        }
                    }
                    Storage::$v(out)
                })*
            }
        };
    }
    let storage = cat!(
        F32, F64, I32, I64, Bool, I8, I16, U8, U16, U32, U64, F16, BF16, C64, C128, Str, QI8, QU8, QI16, QU16, QI32,
        Variant
    );
    Tensor::from_storage(shape, storage)
}

/// Rows `start..end` of `x` along dimension 0, shaped `[end - start] + x.shape[1..]`, or
/// without that dimension when `squeeze` (one row as a list element).
pub(crate) fn rows(x: &Tensor, start: usize, end: usize, squeeze: bool) -> Result<Tensor> {
    let inner: usize = x.shape()[1..].iter().product();
    let idx: Vec<usize> = (start * inner..end * inner).collect();
    let mut shape = x.shape().to_vec();
    if squeeze {
        shape.remove(0);
    } else {
        shape[0] = end - start;
    }
    Tensor::from_storage(&shape, x.storage().try_gather(&idx)?)
}

/// The list behind input `i`, taken out of the inputs so that a list nobody else holds is
/// changed in place.
pub(crate) fn take_list(ctx: &mut KernelCtx, i: usize) -> Result<Tensor> {
    let t = std::mem::replace(&mut ctx.inputs[i], Tensor::scalar(0i32));
    t.tensor_list()?;
    Ok(t)
}

/// The (dtype, shape) of a list output: a scalar variant.
pub(crate) fn list_output() -> (DType, Shape) {
    (DType::Variant, Shape::scalar())
}

/// Errors unless input `i` is a variant (a list handle).
pub(crate) fn check_list_input(ctx: &InferCtx, i: usize) -> Result<()> {
    if ctx.dtype(i) != DType::Variant {
        return Err(Error::invalid_argument(format!(
            "input {i} (a TensorList handle) must be a variant, got {}",
            ctx.dtype(i)
        )));
    }
    Ok(())
}

/// `AddN` of TensorLists (TensorFlow's `TensorListBinaryAdd`, what sums the gradients of a
/// list read twice): element by element, an unset element taking the other list's.
/// Errors: `InvalidArgument` as TensorFlow's for lists of other dtypes, element shapes or
/// lengths, and for elements whose shapes differ.
pub(crate) fn add_n_lists(ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
    let mut acc = take_list(ctx, 0)?;
    for i in 1..ctx.inputs.len() {
        let b = ctx.input(i).tensor_list()?.clone();
        let a = acc.tensor_list_mut()?;
        if a.element_dtype != b.element_dtype {
            return Err(Error::invalid_argument(format!(
                "Trying to add two lists of tensors of different dtypes. One is {} and the other is {}",
                dtype_string(a.element_dtype),
                dtype_string(b.element_dtype)
            )));
        }
        let shape = a.element_shape.merge(&b.element_shape).ok_or_else(|| {
            Error::invalid_argument(format!(
                "Trying to add two lists of tensors with incompatible element shapes. One is {} and the other is {}",
                tf_shape(&a.element_shape),
                tf_shape(&b.element_shape)
            ))
        })?;
        if a.tensors.len() != b.tensors.len() {
            return Err(Error::invalid_argument(format!(
                "Trying to add two lists of tensors with different lengths. One is {} and the other is {}",
                a.tensors.len(),
                b.tensors.len()
            )));
        }
        a.element_shape = shape;
        for (x, y) in a.tensors.iter_mut().zip(b.tensors) {
            *x = match (x.take(), y) {
                (None, y) => y,
                (x, None) => x,
                (Some(u), Some(v)) => Some(add_tensors(&u, &v)?),
            };
        }
    }
    Ok(vec![acc])
}

/// `a + b` for two list elements of one dtype and shape.
fn add_tensors(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.shape() != b.shape() {
        return Err(Error::invalid_argument(format!(
            "Incompatible shapes: {} vs. {}",
            tf_dims(a.shape()),
            tf_dims(b.shape())
        )));
    }
    macro_rules! add {
        ($($v:ident),*) => {
            match (a.storage(), b.storage()) {
                $((Storage::$v(x), Storage::$v(y)) => Storage::$v(x.iter().zip(y).map(|(&p, &q)| p + q).collect()),)*
                (Storage::Variant(_), Storage::Variant(_)) => {
                    return Err(Error::unimplemented("adding lists of variant elements (nested TensorLists)"))
                }
                _ => {
                    return Err(Error::invalid_argument(format!(
                        "cannot add list elements of dtypes {} and {}",
                        a.dtype(),
                        b.dtype()
                    )))
                }
            }
        };
    }
    let s = add!(F32, F64, I32, I64, I8, I16, U8, U16, U32, U64, F16, BF16);
    Tensor::from_storage(a.shape(), s)
}
