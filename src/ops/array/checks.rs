//! Ops that pass their input through after checking it: `CheckNumerics`, `CheckNumericsV2`
//! (`tf.debugging.check_numerics`) and `EnsureShape` (`tf.ensure_shape`).

use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{DType, Shape, Storage, Tensor};

pub(crate) static DEFS: &[&dyn RegisteredOp] = &[&CheckNumerics(false), &CheckNumerics(true), &EnsureShape];

const FLOATS: &[DType] = &[DType::Half, DType::BFloat16, DType::Float, DType::Double];

/// A shape as TensorFlow's `DebugString` writes it in messages: `[2,3]`, `[?,2]`, `<unknown>`.
pub(crate) fn debug_string(shape: &Shape) -> String {
    match shape.dims() {
        None => "<unknown>".to_string(),
        Some(d) => {
            let parts: Vec<String> = d.iter().map(|x| x.map_or_else(|| "?".to_string(), |v| v.to_string())).collect();
            format!("[{}]", parts.join(","))
        }
    }
}

/// `CheckNumerics(tensor)` (attr `message`) and `CheckNumericsV2`: `tensor` (half, bfloat16,
/// float32, float64) passed through unchanged when every element is finite. Errors
/// (`InvalidArgument`, TensorFlow's text): `"<message> : Tensor had NaN values"` (`Inf`,
/// `Inf and NaN`; V2 tells `-Inf` from `+Inf`: `"Tensor had -Inf, +Inf, and NaN values"`).
/// Gradient (TensorFlow's): the incoming gradient through the same check, with message
/// `"Not a number (NaN) or infinity (Inf) values detected in gradient. <message>"`.
pub struct CheckNumerics(pub bool);

impl RegisteredOp for CheckNumerics {
    fn op_type(&self) -> &'static str {
        if self.0 {
            "CheckNumericsV2"
        } else {
            "CheckNumerics"
        }
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_type_attr("T", 0)?;
        let t = ctx.check_dtype(0, FLOATS)?;
        Ok(vec![(t, ctx.shape(0).clone())])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(CheckKernel { message: message(node)?, v2: self.0 }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        let msg = format!("Not a number (NaN) or infinity (Inf) values detected in gradient. {}", message(ctx.node)?);
        let g = ctx.grad(0)?;
        let out = if self.0 { check_numerics_v2(ctx.scope, &g, &msg)? } else { check_numerics(ctx.scope, &g, &msg)? };
        Ok(vec![Some(out)])
    }
}

fn message(node: &Node) -> Result<String> {
    match node.attrs.get("message") {
        Some(crate::graph::AttrValue::String(s)) => Ok(String::from_utf8_lossy(s).into_owned()),
        None => Err(Error::invalid_argument(format!("NodeDef missing attr 'message' of node {}", node.name))),
        Some(v) => Err(Error::invalid_argument(format!("attr message of '{}' must be a string, got {v:?}", node.name))),
    }
}

struct CheckKernel {
    message: String,
    v2: bool,
}

/// (has NaN, has -Inf, has +Inf) of a floating-point tensor.
fn anomalies(t: &Tensor) -> Result<(bool, bool, bool)> {
    fn scan(v: impl Iterator<Item = f64>) -> (bool, bool, bool) {
        let mut r = (false, false, false);
        for x in v {
            if x.is_nan() {
                r.0 = true;
            } else if x == f64::NEG_INFINITY {
                r.1 = true;
            } else if x == f64::INFINITY {
                r.2 = true;
            }
        }
        r
    }
    Ok(match t.storage() {
        Storage::F32(v) => scan(v.iter().map(|&x| x as f64)),
        Storage::F64(v) => scan(v.iter().copied()),
        _ => scan(t.to_f64_vec()?.into_iter()),
    })
}

impl Kernel for CheckKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        let (nan, neg, pos) = anomalies(x)?;
        let mut found: Vec<&str> = Vec::new();
        if self.v2 {
            found.extend([(neg, "-Inf"), (pos, "+Inf"), (nan, "NaN")].iter().filter(|f| f.0).map(|f| f.1));
        } else {
            found.extend([(neg || pos, "Inf"), (nan, "NaN")].iter().filter(|f| f.0).map(|f| f.1));
        }
        let what = match found.as_slice() {
            [] => return Ok(vec![x.clone()]),
            [a] => a.to_string(),
            [a, b] => format!("{a} and {b}"),
            [rest @ .., last] => format!("{}, and {last}", rest.join(", ")),
        };
        Err(Error::invalid_argument(format!("{} : Tensor had {what} values", self.message)))
    }
}

/// `tf.debugging.check_numerics(x, message)`: op `CheckNumerics`, default name
/// `CheckNumerics`. See [`CheckNumerics`].
pub fn check_numerics(s: &Scope, x: &Output, message: &str) -> Result<Output> {
    s.op("CheckNumerics", "CheckNumerics").input(x).attr("T", x.dtype()).attr("message", message).build_output()
}

/// Op `CheckNumericsV2` (tells `-Inf` from `+Inf`), default name `CheckNumericsV2`. See
/// [`CheckNumerics`].
pub fn check_numerics_v2(s: &Scope, x: &Output, message: &str) -> Result<Output> {
    s.op("CheckNumericsV2", "CheckNumericsV2").input(x).attr("T", x.dtype()).attr("message", message).build_output()
}

/// `EnsureShape(input)` (attr `shape`, a partial shape): `input` (every dtype) passed
/// through, its static shape merged with `shape`. Errors (`InvalidArgument`, TensorFlow's
/// texts): at build time when the shapes cannot merge (`Dimension 1 in both shapes must be
/// equal, but are 2 and 3. Shapes are [?,2] and [?,3].`); when run, `Shape of tensor
/// e's input [1,3] is not compatible with expected shape [?,2].` (TensorFlow names the input
/// tensor, `x`, where this names the `EnsureShape` node `e`). Gradient: the incoming gradient.
pub struct EnsureShape;

impl RegisteredOp for EnsureShape {
    fn op_type(&self) -> &'static str {
        "EnsureShape"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        ctx.expect_inputs(1)?;
        ctx.check_type_attr("T", 0)?;
        let want = ctx.node.attr_shape("shape")?;
        let got = ctx.shape(0);
        if let (Some(a), Some(b)) = (want.dims(), got.dims()) {
            if a.len() != b.len() {
                return Err(Error::invalid_argument(format!("Shape must be rank {} but is rank {}", a.len(), b.len())));
            }
            if let Some((i, (x, y))) =
                a.iter().zip(b).enumerate().find(|(_, (x, y))| x.is_some() && y.is_some() && x != y)
            {
                return Err(Error::invalid_argument(format!(
                    "Dimension {i} in both shapes must be equal, but are {} and {}. Shapes are {} and {}.",
                    x.unwrap_or(0),
                    y.unwrap_or(0),
                    debug_string(want),
                    debug_string(got)
                )));
            }
        }
        let merged = want.merge(got).unwrap_or_else(|| want.clone());
        Ok(vec![(ctx.dtype(0), merged)])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        Ok(Box::new(EnsureKernel { shape: node.attr_shape("shape")?.clone(), node: node.name.clone() }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(vec![Some(ctx.grad(0)?)])
    }
}

struct EnsureKernel {
    shape: Shape,
    /// The node's name: TensorFlow's message names the input tensor, which a prepared
    /// kernel does not see, so here the message names the `EnsureShape` node's input.
    node: String,
}

impl Kernel for EnsureKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let x = ctx.input(0);
        if !self.shape.is_compatible_with(x.shape()) {
            return Err(Error::invalid_argument(format!(
                "Shape of tensor {}'s input {} is not compatible with expected shape {}.",
                self.node,
                debug_string(&Shape::known(x.shape())),
                debug_string(&self.shape)
            )));
        }
        Ok(vec![x.clone()])
    }
}

/// `tf.ensure_shape(x, shape)`: op `EnsureShape`, default name `EnsureShape`. See
/// [`EnsureShape`].
pub fn ensure_shape(s: &Scope, x: &Output, shape: impl Into<Shape>) -> Result<Output> {
    s.op("EnsureShape", "EnsureShape").input(x).attr("T", x.dtype()).attr("shape", shape.into()).build_output()
}
