//! What a fused matrix product (`_FusedConv2D`, `_FusedMatMul`) does to its output while
//! the product writes it: a bias added per output column and an activation, applied to each
//! block of the output right after the block's product, on the thread that computed it (no
//! intermediate tensor, no second pass over the whole output).

use super::Float;

/// The activation a fused product applies after its bias, as TensorFlow's `fused_ops`
/// names them; each computes what the op of the same name computes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Activation {
    /// No activation (`fused_ops = ["BiasAdd"]`).
    Identity,
    /// `Relu`: `max(x, 0)`.
    Relu,
    /// `Relu6`: `min(max(x, 0), 6)`.
    Relu6,
    /// `Elu`: `x < 0 ? exp(x) - 1 : x`.
    Elu,
    /// `LeakyRelu` with its `alpha`: `x > 0 ? x : alpha * x`.
    LeakyRelu(f32),
}

impl Activation {
    /// The activation of a `fused_ops` entry (`Relu`, `Relu6`, `Elu`, `LeakyRelu`), with
    /// `alpha` for `LeakyRelu`; `None` for other names.
    pub fn from_name(name: &str, alpha: f32) -> Option<Activation> {
        Some(match name {
            "Relu" => Activation::Relu,
            "Relu6" => Activation::Relu6,
            "Elu" => Activation::Elu,
            "LeakyRelu" => Activation::LeakyRelu(alpha),
            _ => return None,
        })
    }

    /// Applies the activation to `v` in place. Relu and Relu6 store a select for every
    /// element (no branch), so the loops vectorise.
    #[inline]
    pub fn apply<T: Float>(self, v: &mut [T]) {
        match self {
            Activation::Identity => {}
            Activation::Relu => v.iter_mut().for_each(|x| *x = if *x < T::ZERO { T::ZERO } else { *x }),
            Activation::Relu6 => {
                let six = T::from_f64(6.0);
                v.iter_mut().for_each(|x| {
                    let low = if *x < T::ZERO { T::ZERO } else { *x };
                    *x = if *x > six { six } else { low }
                })
            }
            Activation::Elu => v.iter_mut().for_each(|x| {
                if *x < T::ZERO {
                    *x = x.exp() - T::ONE
                }
            }),
            Activation::LeakyRelu(alpha) => {
                let a = T::from_f64(alpha as f64);
                v.iter_mut().for_each(|x| {
                    // x > 0 ? x : alpha * x (NaN takes the alpha branch, as LeakyRelu's kernel)
                    if (*x).partial_cmp(&T::ZERO) != Some(std::cmp::Ordering::Greater) {
                        *x = a * *x
                    }
                })
            }
        }
    }
}

/// The bias (one value per output column) and activation of a fused product.
#[derive(Clone, Copy)]
pub struct Epilogue<'a, T> {
    /// Added to every row of the output (length: the output's columns).
    pub bias: Option<&'a [T]>,
    /// Applied after the bias.
    pub act: Activation,
}

impl<T> Epilogue<'_, T> {
    /// Nothing: the plain product.
    pub fn none() -> Self {
        Epilogue { bias: None, act: Activation::Identity }
    }
}

/// Reads a fused op's `fused_ops` (`["BiasAdd"]` or `["BiasAdd", A]` for an activation `A`
/// of [`Activation::from_name`], `A`'s alpha from `leakyrelu_alpha`) and checks `num_args`
/// is 1 (the bias). Errors: `Unimplemented` for other fusions (TensorFlow's
/// `["FusedBatchNorm", ...]`, `Add`, ...), naming the node and its `fused_ops`.
pub(crate) fn read_fused_ops(node: &crate::graph::Node) -> crate::error::Result<Activation> {
    use crate::graph::AttrValue;
    let ops: Vec<String> = match node.attrs.get("fused_ops") {
        Some(AttrValue::ListString(v)) => v.iter().map(|s| String::from_utf8_lossy(s).into_owned()).collect(),
        _ => Vec::new(),
    };
    let alpha = node.attr_float_or("leakyrelu_alpha", 0.2)?;
    let num_args = node.attr_int_or("num_args", 0)?;
    let act = match &ops[..] {
        [b] if b == "BiasAdd" => Some(Activation::Identity),
        [b, a] if b == "BiasAdd" => Activation::from_name(a, alpha),
        _ => None,
    };
    match act {
        Some(act) if num_args == 1 => Ok(act),
        _ => Err(crate::error::Error::unimplemented(format!(
            "{} '{}' with fused_ops {ops:?} and num_args {num_args}: tensorgraph runs [\"BiasAdd\"] and [\"BiasAdd\", A] for A in Relu, Relu6, Elu, LeakyRelu, with one argument (the bias)",
            node.op_type, node.name
        ))),
    }
}
