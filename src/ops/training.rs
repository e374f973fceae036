//! Optimizer update ops on reference variables: ApplyGradientDescent, ApplyMomentum,
//! ApplyAdam. Each updates its variable (and slots) in place and outputs the new value.
//! The resource-variable forms (`ResourceApply*`, in [`super::resource_variable`]) share
//! the shape checks (`infer_apply`) and kernels (`prepare_gradient_descent`,
//! `prepare_momentum`, `prepare_adam`) defined here.

use super::kernels::{Float, Num};
use super::variable_common::handle_info;
use super::{InferCtx, Kernel, KernelCtx, RegisteredOp, VarSlot};
use crate::error::{Error, Result};
use crate::graph::Node;
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&ApplyGradientDescent, &ApplyMomentum, &ApplyAdam];

/// How an update op reaches its variable and slots: reference inputs (`Apply*`, which
/// output the new value) or resource handles (`ResourceApply*`, which output nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    /// `VariableV2` outputs (`ref(T)` inputs).
    Ref,
    /// `VarHandleOp` outputs (`resource` inputs).
    Resource,
}

/// Shape/dtype inference of an update op with `n` inputs: input 0 is the variable, `refs`
/// its slots (same shape), `scalars` the 0-d hyper-parameters and `grad` the gradient. For
/// [`Access::Resource`] the variable and slot inputs are handles, checked through the
/// `dtype` and `shape` attrs of their `VarHandleOp`s, and the op has no outputs.
pub(super) fn infer_apply(
    ctx: &InferCtx,
    n: usize,
    refs: &[usize],
    scalars: &[usize],
    grad: usize,
    access: Access,
) -> Result<Vec<(DType, Shape)>> {
    ctx.expect_inputs(n)?;
    if access == Access::Ref {
        return infer_update(ctx, refs, scalars, grad);
    }
    let t = ctx.dtype(grad);
    let mut inputs = ctx.inputs.to_vec();
    for &i in [0].iter().chain(refs) {
        inputs[i] = match handle_info(ctx, i)? {
            Some(info) => info,
            None => (t, Shape::unknown()),
        };
    }
    let view = InferCtx { nodes: ctx.nodes, node: ctx.node, inputs: &inputs };
    infer_update(&view, refs, scalars, grad)?;
    Ok(vec![])
}

/// Checks the update inputs: all of dtype `T`, the ref inputs and `grad` of the variable's shape.
fn infer_update(ctx: &InferCtx, refs: &[usize], scalars: &[usize], grad: usize) -> Result<Vec<(DType, Shape)>> {
    let t = ctx.same_dtypes()?;
    let var = ctx.shape(0);
    for &i in refs.iter().chain([grad].iter()) {
        if !var.compatible(ctx.shape(i)) {
            return Err(Error::invalid_argument(format!(
                "input {i} has shape {} but the variable has shape {var}",
                ctx.shape(i)
            )));
        }
    }
    for &i in scalars {
        if ctx.shape(i).rank().is_some_and(|r| r != 0) {
            return Err(Error::invalid_argument(format!("input {i} must be a scalar, got shape {}", ctx.shape(i))));
        }
    }
    Ok(vec![(t, var.clone())])
}

/// Reads a 0-d float input as T.
fn scalar<T: Float>(ctx: &KernelCtx, i: usize) -> Result<T> {
    let t = ctx.input(i);
    if t.num_elements() != 1 {
        return Err(Error::invalid_argument(format!("input {i} must be a scalar, got shape {}", fmt_dims(t.shape()))));
    }
    Ok(t.as_slice::<T>()?[0])
}

/// An in-place update of variable buffers from a gradient.
type UpdateFn<'a, T> = &'a dyn Fn(&mut [&mut [T]], &[T]);

/// Runs `f` on the ref inputs `refs` (in-place) with the gradient input; stores them back.
/// Returns the new value of the first (the variable).
fn update_refs<T: Float>(ctx: &KernelCtx, refs: &[usize], grad: usize, f: UpdateFn<T>) -> Result<Tensor> {
    let g = ctx.input(grad);
    let slots: Vec<(&VarSlot, &str)> = refs.iter().map(|&i| ctx.var(i)).collect::<Result<_>>()?;
    // lock the variable buffers in input order for the whole update (TensorFlow's use_locking)
    let mut guards: Vec<_> = slots.iter().map(|(s, _)| s.write().unwrap_or_else(|e| e.into_inner())).collect();
    let mut tensors = Vec::with_capacity(refs.len());
    for (guard, (_, name)) in guards.iter_mut().zip(&slots) {
        let t = guard.take().ok_or_else(|| super::uninitialized(name));
        let t = match t.and_then(|t| {
            if t.shape() != g.shape() {
                Err(Error::invalid_argument(format!(
                    "{name} has shape {} but the gradient has shape {}",
                    fmt_dims(t.shape()),
                    fmt_dims(g.shape())
                )))
            } else {
                Ok(t)
            }
        }) {
            Ok(t) => t,
            Err(e) => {
                // put back what was taken
                for (gd, t) in guards.iter_mut().zip(tensors) {
                    **gd = Some(t);
                }
                return Err(e);
            }
        };
        tensors.push(t);
    }
    {
        let mut views: Vec<&mut [T]> = Vec::with_capacity(tensors.len());
        for t in tensors.iter_mut() {
            views.push(t.as_mut_slice::<T>()?);
        }
        f(&mut views, g.as_slice::<T>()?);
    }
    let out = tensors[0].clone();
    for (gd, t) in guards.iter_mut().zip(tensors) {
        **gd = Some(t);
    }
    Ok(out)
}

/// `ApplyGradientDescent(var, alpha, delta)`: `var -= alpha * delta`.
pub struct ApplyGradientDescent;
impl RegisteredOp for ApplyGradientDescent {
    fn op_type(&self) -> &'static str {
        "ApplyGradientDescent"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        infer_gradient_descent(ctx, Access::Ref)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        prepare_gradient_descent(node, Access::Ref)
    }
    fn ref_inputs(&self) -> &'static [usize] {
        &[0]
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// Inference of `(Resource)ApplyGradientDescent(var, alpha, delta)`.
pub(super) fn infer_gradient_descent(ctx: &InferCtx, access: Access) -> Result<Vec<(DType, Shape)>> {
    infer_apply(ctx, 3, &[], &[1], 2, access)
}

/// The kernel of `(Resource)ApplyGradientDescent` for `node` (attr `use_locking`).
pub(super) fn prepare_gradient_descent(node: &Node, access: Access) -> Result<Box<dyn Kernel>> {
    check_use_locking(node)?;
    Ok(Box::new(GradientDescentKernel { access }))
}

/// The kernel of `(Resource)ApplyGradientDescent`: `var -= alpha * delta` in place.
struct GradientDescentKernel {
    /// `Ref`: outputs the new value.
    access: Access,
}

impl Kernel for GradientDescentKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let ctx = &*ctx;
        let out = crate::dispatch_float!(ctx.input(1).dtype(), ctx.op_type(), T => {
            let alpha: T = scalar(ctx, 1)?;
            update_refs::<T>(ctx, &[0], 2, &|v, g| {
                for (x, &d) in v[0].iter_mut().zip(g) {
                    *x -= alpha * d;
                }
            })
        })?;
        Ok(access_outputs(self.access, out))
    }
}

/// Checks the `use_locking` attr of an update op: a bool when present. The kernels always
/// hold the variable buffers' locks for the whole update, so its value changes nothing.
fn check_use_locking(node: &Node) -> Result<()> {
    node.attr_bool_or("use_locking", false).map(|_| ())
}

/// What an update op outputs: the new value of the variable (`Ref`), or nothing (`Resource`).
fn access_outputs(access: Access, new_value: Tensor) -> Vec<Tensor> {
    match access {
        Access::Ref => vec![new_value],
        Access::Resource => vec![],
    }
}

/// `ApplyMomentum(var, accum, lr, grad, momentum)`: `accum = accum * momentum + grad;
/// var -= lr * accum` (Nesterov: `var -= lr * grad + lr * momentum * accum`).
pub struct ApplyMomentum;
impl RegisteredOp for ApplyMomentum {
    fn op_type(&self) -> &'static str {
        "ApplyMomentum"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        infer_momentum(ctx, Access::Ref)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        prepare_momentum(node, Access::Ref)
    }
    fn ref_inputs(&self) -> &'static [usize] {
        &[0, 1]
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// Inference of `(Resource)ApplyMomentum(var, accum, lr, grad, momentum)`.
pub(super) fn infer_momentum(ctx: &InferCtx, access: Access) -> Result<Vec<(DType, Shape)>> {
    infer_apply(ctx, 5, &[1], &[2, 4], 3, access)
}

/// The kernel of `(Resource)ApplyMomentum` for `node` (attrs `use_locking`, `use_nesterov`).
pub(super) fn prepare_momentum(node: &Node, access: Access) -> Result<Box<dyn Kernel>> {
    check_use_locking(node)?;
    Ok(Box::new(MomentumKernel { access, nesterov: node.attr_bool_or("use_nesterov", false)? }))
}

/// The kernel of `(Resource)ApplyMomentum`.
struct MomentumKernel {
    /// `Ref`: outputs the new value of `var`.
    access: Access,
    /// Nesterov momentum (attr `use_nesterov`).
    nesterov: bool,
}

impl Kernel for MomentumKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let ctx = &*ctx;
        let nesterov = self.nesterov;
        let out = crate::dispatch_float!(ctx.input(2).dtype(), ctx.op_type(), T => {
            let lr: T = scalar(ctx, 2)?;
            let m: T = scalar(ctx, 4)?;
            update_refs::<T>(ctx, &[0, 1], 3, &|v, g| {
                let (var, rest) = v.split_at_mut(1);
                for ((x, a), &d) in var[0].iter_mut().zip(rest[0].iter_mut()).zip(g) {
                    *a = *a * m + d;
                    *x = if nesterov { *x - (d * lr + *a * m * lr) } else { *x - lr * *a };
                }
            })
        })?;
        Ok(access_outputs(self.access, out))
    }
}

/// `ApplyAdam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad)`:
/// `lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)`; `m = beta1 m + (1 - beta1) g`;
/// `v = beta2 v + (1 - beta2) g²`; `var -= lr_t m / (sqrt(v) + epsilon)`.
pub struct ApplyAdam;
impl RegisteredOp for ApplyAdam {
    fn op_type(&self) -> &'static str {
        "ApplyAdam"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        infer_adam(ctx, Access::Ref)
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        prepare_adam(node, Access::Ref)
    }
    fn ref_inputs(&self) -> &'static [usize] {
        &[0, 1, 2]
    }
    fn is_stateful(&self) -> bool {
        true
    }
}

/// Inference of `(Resource)ApplyAdam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad)`.
pub(super) fn infer_adam(ctx: &InferCtx, access: Access) -> Result<Vec<(DType, Shape)>> {
    infer_apply(ctx, 10, &[1, 2], &[3, 4, 5, 6, 7, 8], 9, access)
}

/// The kernel of `(Resource)ApplyAdam` for `node` (attrs `use_locking`, `use_nesterov`).
pub(super) fn prepare_adam(node: &Node, access: Access) -> Result<Box<dyn Kernel>> {
    check_use_locking(node)?;
    Ok(Box::new(AdamKernel { access, nesterov: node.attr_bool_or("use_nesterov", false)? }))
}

/// The kernel of `(Resource)ApplyAdam`.
struct AdamKernel {
    /// `Ref`: outputs the new value of `var`.
    access: Access,
    /// Nesterov momentum (attr `use_nesterov`).
    nesterov: bool,
}

impl Kernel for AdamKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        let ctx = &*ctx;
        let nesterov = self.nesterov;
        let out = crate::dispatch_float!(ctx.input(5).dtype(), ctx.op_type(), T => {
            let [b1p, b2p, lr, b1, b2, eps]: [T; 6] = [
                scalar(ctx, 3)?, scalar(ctx, 4)?, scalar(ctx, 5)?, scalar(ctx, 6)?, scalar(ctx, 7)?, scalar(ctx, 8)?,
            ];
            let one = T::ONE;
            let lr_t = lr * (one - b2p).sqrt() / (one - b1p);
            update_refs::<T>(ctx, &[0, 1, 2], 9, &|v, g| {
                let [var, m, v] = v else { return };
                let n = g.len();
                let (var, m, v) = (&mut var[..n], &mut m[..n], &mut v[..n]);
                let (c1, c2) = (one - b1, one - b2);
                for i in 0..n {
                    let d = g[i];
                    let mi = m[i] + (d - m[i]) * c1;
                    let vi = v[i] + (d * d - v[i]) * c2;
                    m[i] = mi;
                    v[i] = vi;
                    let step = if nesterov { (mi * b1 + d * c1) * lr_t } else { mi * lr_t };
                    var[i] -= step / (vi.sqrt() + eps);
                }
            })
        })?;
        Ok(access_outputs(self.access, out))
    }
}
