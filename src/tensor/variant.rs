//! Variant values (`DT_VARIANT`): the opaque elements of a variant tensor. The one kind
//! tensorgraph has is TensorFlow's `TensorList` (`tensorflow/core/kernels/tensor_list.h`):
//! an immutable list of tensors of one element dtype, with an element shape that may be
//! partially known. A list is a value, not a resource: the TensorList ops read a list and
//! output a new one (copy on write: an op whose input list is held by nobody else changes
//! it in place, see [`Tensor::tensor_list_mut`]).

use super::{DType, Shape, Storage, Tensor};
use crate::error::{Error, Result};

/// One element of a variant tensor.
#[derive(Debug, Clone, PartialEq)]
pub enum VariantValue {
    /// A TensorList.
    TensorList(TensorList),
}

impl VariantValue {
    /// TensorFlow's type name of the value (`TensorList`), as its messages show it.
    pub fn type_name(&self) -> &'static str {
        match self {
            VariantValue::TensorList(_) => "TensorList",
        }
    }
}

/// TensorFlow's `TensorList`: the elements (`None` for an element not yet set, TensorFlow's
/// uninitialized `DT_INVALID` tensor, as `TensorListReserve` makes them), their dtype, the
/// shape every element must be compatible with, and a bound on the length (`-1`: none).
#[derive(Debug, Clone, PartialEq)]
pub struct TensorList {
    /// The elements, in order; `None`: not set yet (read as zeros of the element shape).
    pub tensors: Vec<Option<Tensor>>,
    /// The dtype of every element.
    pub element_dtype: DType,
    /// The shape every element is compatible with (may be partial or of unknown rank).
    pub element_shape: Shape,
    /// The most elements `TensorListPushBack` may make (`-1`: unbounded).
    pub max_num_elements: i64,
}

impl TensorList {
    /// An empty list of `element_dtype` elements of `element_shape`, unbounded.
    pub fn new(element_dtype: DType, element_shape: Shape) -> TensorList {
        TensorList { tensors: Vec::new(), element_dtype, element_shape, max_num_elements: -1 }
    }

    /// The list with every set element replaced by zeros of its shape and dtype (unset
    /// elements stay unset): TensorFlow's `ZerosLike` of a TensorList.
    /// Errors: those of [`Tensor::try_zeros`] (a nested variant element).
    pub fn zeros_like(&self) -> Result<TensorList> {
        let mut out = self.clone();
        for t in out.tensors.iter_mut().flatten() {
            *t = t.zeros_like()?;
        }
        Ok(out)
    }
}

impl Tensor {
    /// A scalar variant tensor holding `list`.
    pub fn from_tensor_list(list: TensorList) -> Tensor {
        Tensor::from_storage(&[], Storage::Variant(vec![VariantValue::TensorList(list)]))
            .expect("one element for a scalar")
    }

    /// The TensorList a scalar variant tensor holds. Errors: `InvalidArgument` as
    /// TensorFlow's `GetInputList`: "Input handle is not a list. Saw: '...'".
    pub fn tensor_list(&self) -> Result<&TensorList> {
        match self.storage() {
            Storage::Variant(v) if v.len() == 1 && self.rank() == 0 => match &v[0] {
                VariantValue::TensorList(l) => Ok(l),
            },
            _ => Err(not_a_list(self)),
        }
    }

    /// The TensorList of a scalar variant tensor, to change: in place when this tensor is
    /// the only holder of its buffer, else on a copy (the elements themselves are shared,
    /// so a copy costs one pointer per element). Errors as [`Tensor::tensor_list`].
    pub fn tensor_list_mut(&mut self) -> Result<&mut TensorList> {
        if self.tensor_list().is_err() {
            return Err(not_a_list(self));
        }
        match self.storage_mut() {
            Storage::Variant(v) => match &mut v[0] {
                VariantValue::TensorList(l) => Ok(l),
            },
            _ => Err(Error::internal("a TensorList tensor changed kind")),
        }
    }

    /// Zeros of this tensor's dtype and shape; for a variant tensor the zeros of each
    /// value (TensorFlow's `ZerosLike`, which is per-kind for variants).
    /// Errors: those of [`Tensor::try_zeros`].
    pub fn zeros_like(&self) -> Result<Tensor> {
        match self.storage() {
            Storage::Variant(v) => {
                let vals = v
                    .iter()
                    .map(|x| match x {
                        VariantValue::TensorList(l) => Ok(VariantValue::TensorList(l.zeros_like()?)),
                    })
                    .collect::<Result<Vec<_>>>()?;
                Tensor::from_storage(self.shape(), Storage::Variant(vals))
            }
            _ => Tensor::try_zeros(self.dtype(), self.shape()),
        }
    }
}

/// TensorFlow's message for a variant input that is not one TensorList.
fn not_a_list(t: &Tensor) -> Error {
    let saw = match t.storage() {
        Storage::Variant(v) if t.rank() == 0 && v.len() == 1 => v[0].type_name().to_string(),
        Storage::Variant(_) => format!("a variant tensor of shape {}", Shape::known(t.shape())),
        _ => format!("a {} tensor", t.dtype()),
    };
    Error::invalid_argument(format!("Input handle is not a list. Saw: '{saw}'"))
}
