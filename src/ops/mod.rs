//! The op registry: one definition per TensorFlow op type. Each [`RegisteredOp`] gives the op's
//! shape/dtype inference, its CPU kernel and its gradient, side by side. Graph building,
//! the session and the gradient builder all read this table; nothing else lists ops.
//!
//! The builder functions users call (`ops::add`, `ops::matmul`, ...) live beside the
//! definitions, one file per family.

pub mod array;
mod builder;
pub mod cond;
pub mod control_flow;
pub mod conv;
pub(crate) mod flow_context;
mod half_float;
pub mod image;
pub mod io_ops;
pub mod io_ops_v1;
pub(crate) mod kernels;
pub mod logging;
pub mod math;
pub mod nn;
pub mod parsing;
pub mod quantize;
pub mod random;
pub mod ref_variable;
mod registry;
pub mod resource_variable;
pub mod schema;
pub mod stack;
pub mod step_resources;
pub mod string_ops;
pub mod summary;
pub mod tensor_array;
pub mod tensor_list;
pub mod thread_pool;
pub mod training;
pub mod unknown;
mod variable_common;
mod variables;
pub mod while_loop;

use crate::error::{Error, Result};
use crate::graph::{Node, Output, Scope};
use crate::tensor::{DType, Shape, Tensor};
use std::sync::{Arc, Mutex, RwLock};

pub use array::*;
pub use cond::cond;
pub use control_flow::{
    control_trigger, enter, exit, loop_cond, merge, next_iteration, ref_enter, ref_exit, ref_merge, ref_next_iteration,
    ref_switch, switch,
};
pub use conv::{
    avg_pool, conv2d, conv2d_backprop_filter, conv2d_backprop_input, conv2d_transpose, depthwise_conv2d_native,
    depthwise_conv2d_native_backprop_filter, depthwise_conv2d_native_backprop_input, dilation2d, extract_image_patches,
    max_pool, max_pool_with_argmax, DepthwiseConv2dOptions,
};
pub use image::nms::{non_max_suppression_v3, non_max_suppression_v5};
pub use image::{crop_and_resize, resize_bicubic, resize_bilinear, resize_nearest_neighbor};
pub use logging::{assert_op, print_op};
pub use math::*;
pub use nn::*;
pub use parsing::{parse_example, FixedLenFeature};
pub use quantize::{dequantize, quantize_v2, DequantizeOptions, QuantizeOptions};
pub use random::{
    log_uniform_candidate_sampler, multinomial, random_normal, random_shuffle, random_uniform,
    stateless_random_get_key_counter, stateless_random_normal, stateless_random_normal_v2, stateless_random_uniform,
    stateless_random_uniform_v2, stateless_truncated_normal, stateless_truncated_normal_v2, truncated_normal,
    uniform_candidate_sampler,
};
pub use ref_variable::{assign, assign_add, assign_sub, is_variable_initialized};
pub use registry::{lookup, registered_op_types};
pub use resource_variable::{
    assign_add_variable_op, assign_sub_variable_op, assign_variable_op, read_variable_op, var_is_initialized_op,
};
pub use stack::{stack_close_v2, stack_pop_v2, stack_push_v2, stack_v2};
pub use step_resources::StepResources;
pub use string_ops::static_regex_full_match;
pub use tensor_array::{
    tensor_array_close_v3, tensor_array_concat_v3, tensor_array_gather_v3, tensor_array_grad_v3,
    tensor_array_grad_with_shape, tensor_array_read_v3, tensor_array_scatter_v3, tensor_array_size_v3,
    tensor_array_split_v3, tensor_array_v3, tensor_array_write_v3, TensorArrayOptions,
};
pub use thread_pool::ThreadPool;
pub use variables::VariableOptions;
pub use while_loop::{while_loop, WhileOptions};

/// What shape inference sees of a node being added: its attrs and the dtype and
/// inferred shape of each input.
pub struct InferCtx<'a> {
    /// The nodes of the graph the node is added to, by id (to read constant inputs).
    pub nodes: &'a [Arc<Node>],
    /// The node (name, attrs, inputs) being added; its outputs are not yet set.
    pub node: &'a Node,
    /// (dtype, shape) of each data input.
    pub inputs: &'a [(DType, Shape)],
}

impl InferCtx<'_> {
    /// Errors unless the node has exactly `n` inputs.
    pub fn expect_inputs(&self, n: usize) -> Result<()> {
        if self.inputs.len() != n {
            return Err(Error::invalid_argument(format!("expects {n} input(s), got {}", self.inputs.len())));
        }
        Ok(())
    }
    /// The dtype of input `i`.
    pub fn dtype(&self, i: usize) -> DType {
        self.inputs[i].0
    }
    /// The inferred shape of input `i`.
    pub fn shape(&self, i: usize) -> &Shape {
        &self.inputs[i].1
    }
    /// Errors unless all inputs have the same dtype and it equals the node's `T` attr
    /// (see [`InferCtx::check_type_attr`]); returns it.
    pub fn same_dtypes(&self) -> Result<DType> {
        self.same_dtypes_as("T")
    }

    /// [`InferCtx::same_dtypes`] for an op whose type attr is named `attr` (`Range`: `Tidx`).
    pub fn same_dtypes_as(&self, attr: &str) -> Result<DType> {
        let t = self.dtype(0);
        for (i, (d, _)) in self.inputs.iter().enumerate().skip(1) {
            if *d != t {
                return Err(Error::invalid_argument(format!(
                    "input {i} has dtype {d}, which does not match input 0's dtype {t}"
                )));
            }
        }
        self.check_type_attr(attr, 0)?;
        Ok(t)
    }

    /// Errors when the type attr `attr` differs from input `i`'s dtype (TensorFlow: "Input 0
    /// of node a was passed int32 from x:0 incompatible with expected float"), is not a
    /// type, or is missing ("NodeDef missing attr"; the op builders always set it).
    pub fn check_type_attr(&self, attr: &str, i: usize) -> Result<()> {
        let Some((got, _)) = self.inputs.get(i) else { return Ok(()) };
        match self.node.attrs.get(attr) {
            Some(crate::graph::AttrValue::Type(want)) if want != got => Err(Error::invalid_argument(format!(
                "Input {i} of node {} was passed {got} incompatible with expected {want} (attr {attr})",
                self.node.name
            ))),
            Some(crate::graph::AttrValue::Type(_)) => Ok(()),
            Some(_) => self.node.attr_type(attr).map(|_| ()),
            None => Err(Error::invalid_argument(format!(
                "NodeDef missing attr '{attr}' (the dtype of input {i}, {got}) of node {} ({})",
                self.node.name, self.node.op_type
            ))),
        }
    }
    /// Errors unless input `i`'s dtype is one of `allowed`.
    pub fn check_dtype(&self, i: usize, allowed: &[DType]) -> Result<DType> {
        let t = self.dtype(i);
        if !allowed.contains(&t) {
            return Err(dtype_not_accepted(i, t, allowed));
        }
        Ok(t)
    }
    /// The value of input `i` when it is known at build time (for shape arguments): the
    /// output of a `Const`, or of a `Shape` whose input's shape is fully defined (as
    /// TensorFlow's shape inference evaluates them).
    pub fn const_input(&self, i: usize) -> Option<Tensor> {
        let (src, idx) = *self.node.inputs.get(i)?;
        let n = self.nodes.get(src)?;
        match n.op_type {
            "Const" => n.attr_tensor("value").ok().cloned(),
            "Shape" => {
                let (isrc, iidx) = *n.inputs.first()?;
                let dims = self.nodes.get(isrc)?.outputs.get(iidx)?.1.to_vec()?;
                let v: Vec<f64> = dims.iter().map(|&d| d as f64).collect();
                Tensor::from_f64(n.outputs.get(idx)?.0, &[v.len()], &v).ok()
            }
            _ => None,
        }
    }
}

/// Per-session state that stateful kernels reach: variable buffers and random generators.
pub type VarSlot = RwLock<Option<Tensor>>;

/// What a kernel sees when it runs: input values, the variable buffers behind reference
/// inputs, and the op's random generator. Attrs are not here: a [`Kernel`] reads them once,
/// when [`RegisteredOp::prepare`] makes it.
pub struct KernelCtx<'a> {
    /// The name of the node being run (`layer1/MatMul`), for messages.
    pub node_name: &'a str,
    /// The TensorFlow op type of the node being run (`MatMul`), for messages.
    pub op_type: &'static str,
    /// Input values in order (for a reference input, the variable's value when initialized,
    /// else an empty float tensor). Owned, so that a kernel may reuse an input's buffer.
    pub inputs: Vec<Tensor>,
    /// For each input, the variable buffer and name behind it when it is a reference or
    /// resource-handle input (others `None`).
    pub vars: &'a [Option<(Arc<VarSlot>, String)>],
    /// This op's random generator (random ops only).
    pub rng: Option<&'a Mutex<random::RandomState>>,
    /// The resources of the current run (TensorArrays, stacks).
    pub step: &'a StepResources,
    /// The session's intra-op pool, which kernels split large work over (the numeric
    /// helpers in `ops::kernels::parallel` reach the same pool without a context).
    pub pool: &'a ThreadPool,
    /// Bit `i` set when data input `i` comes from a `Const` node of the plan (and is not
    /// fed): its value is the same buffer on every run, so a kernel may keep a form of it
    /// prepared once (a matrix product's packed weights). 0 when unknown.
    pub const_inputs: u64,
}

impl KernelCtx<'_> {
    /// The name of the node being run (`layer1/MatMul`), for messages.
    pub fn node_name(&self) -> &str {
        self.node_name
    }
    /// The TensorFlow op type of the node being run (`MatMul`), for messages.
    pub fn op_type(&self) -> &'static str {
        self.op_type
    }
    /// Input `i`'s value.
    pub fn input(&self, i: usize) -> &Tensor {
        &self.inputs[i]
    }
    /// True when data input `i` comes from a `Const` node (see [`KernelCtx::const_inputs`]).
    pub fn is_const_input(&self, i: usize) -> bool {
        i < 64 && self.const_inputs & (1 << i) != 0
    }
    /// Input `i` packed as a float32 `[k, n]` right operand of a matrix product, kept in
    /// `weights` across runs, when it comes from a `Const` node; `None` for other inputs and
    /// where [`kernels::PackedWeights::get`] gives none (another dtype or size).
    pub(crate) fn packed_const_input(
        &self,
        i: usize,
        weights: &kernels::PackedWeights,
        k: usize,
        n: usize,
    ) -> Option<std::sync::Arc<kernels::PackedB>> {
        self.is_const_input(i).then(|| weights.get(self.input(i), k, n)).flatten()
    }
    /// The variable buffer and name behind reference (or resource-handle) input `i`.
    /// Errors: `InvalidArgument` when input `i` is not a variable.
    pub fn var(&self, i: usize) -> Result<(&VarSlot, &str)> {
        match self.vars.get(i).and_then(|v| v.as_ref()) {
            Some((slot, name)) => Ok((slot, name)),
            None => Err(Error::invalid_argument(format!(
                "input {i} of '{}' ({}) must be a variable (a VariableV2 or VarHandleOp output)",
                self.node_name, self.op_type
            ))),
        }
    }
    /// The current value of the variable behind reference input `i`.
    /// Errors: `FailedPrecondition` when it is uninitialized.
    pub fn var_value(&self, i: usize) -> Result<Tensor> {
        let (slot, name) = self.var(i)?;
        let v = slot.read().unwrap_or_else(|e| e.into_inner()).clone();
        v.ok_or_else(|| uninitialized(name))
    }
}

/// A node made ready to run: its attrs parsed and checked, its kernel function chosen for
/// its dtypes. Made once per node by [`RegisteredOp::prepare`] when a session builds a run plan,
/// then run many times, possibly from several threads at once.
pub trait Kernel: Send + Sync {
    /// Runs the op on concrete inputs; returns one tensor per output.
    /// Errors: the op's own (`InvalidArgument` for inputs of the wrong shape or value, ...).
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>>;

    /// True for a kernel whose one output is its input 0 unchanged (`Identity`,
    /// `StopGradient`, ...): the executor then forwards the value itself, without a
    /// kernel call (`session/run_state.rs`).
    fn forwards_input(&self) -> bool {
        false
    }
}

/// A [`Kernel`] that is a plain function: for ops with nothing to prepare (no attrs the
/// kernel needs, dtype dispatched on the input values).
pub struct FnKernel(pub fn(&mut KernelCtx) -> Result<Vec<Tensor>>);

impl Kernel for FnKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        (self.0)(ctx)
    }
}

/// The `FailedPrecondition` for reading variable `name` before it is initialized.
pub(crate) fn uninitialized(name: &str) -> Error {
    Error::failed_precondition(format!(
        "Attempting to use uninitialized value {name}. Run the initializer first (the op returned by global_variables_initializer, or {name}/Assign), or restore it from a checkpoint."
    ))
}

/// What a gradient function sees: the scope to add ops under (`gradients/<op>_grad`),
/// the forward op's inputs and outputs, and the incoming gradients of its outputs.
pub struct GradCtx<'a> {
    /// Scope under `gradients/<op name>_grad`.
    pub scope: &'a Scope,
    /// The forward node.
    pub node: &'a Node,
    /// The forward op's inputs.
    pub inputs: Vec<Output>,
    /// The forward op's outputs.
    pub outputs: Vec<Output>,
    /// Gradient with respect to each output (`None`: no gradient flows into it).
    pub grads: Vec<Option<Output>>,
}

impl GradCtx<'_> {
    /// The gradient of output `i`, or zeros shaped like it when none flows in.
    pub fn grad(&self, i: usize) -> Result<Output> {
        match &self.grads[i] {
            Some(g) => Ok(g.clone()),
            None => zeros_like(self.scope, &self.outputs[i]),
        }
    }
}

/// `InvalidArgument`: input `i` has dtype `t`, which is not among `allowed`
/// ("input 0 has dtype string; this op accepts float32, float64, ...").
pub(crate) fn dtype_not_accepted(i: usize, t: DType, allowed: &[DType]) -> Error {
    let names: Vec<&str> = allowed.iter().map(|d| d.name()).collect();
    Error::invalid_argument(format!("input {i} has dtype {t}; this op accepts {}", names.join(", ")))
}

/// One TensorFlow op type: inference, kernel and gradient.
pub trait RegisteredOp: Send + Sync {
    /// The TensorFlow op type (`MatMul`).
    fn op_type(&self) -> &'static str;
    /// The dtype and (possibly partial) shape of each output, from the inputs and attrs.
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>>;
    /// Makes the node's kernel: parses and checks its attrs once, chooses the kernel
    /// function for its dtypes. Called when a session builds a run plan.
    /// Errors: `InvalidArgument` naming the node for attrs a kernel cannot run with.
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>>;
    /// Adds the ops computing the gradients of the inputs (`None` where none flows).
    /// The default: the op is not differentiable and passes no gradient.
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        Ok(vec![None; ctx.inputs.len()])
    }
    /// Indices of inputs taken by reference (the variable itself, as `Assign`'s `ref`), and
    /// of resource-handle inputs (`ReadVariableOp`'s `resource`): the kernel gets the
    /// variable's buffer through [`KernelCtx::var`].
    fn ref_inputs(&self) -> &'static [usize] {
        &[]
    }
    /// True when the op must not be pruned or folded (random ops, assignments).
    fn is_stateful(&self) -> bool {
        false
    }
    /// Checks, when a Rust builder adds the op ([`crate::graph::OpBuilder::build`], after its
    /// outputs are inferred), that a kernel exists for `node`'s dtypes, so a graph built in
    /// Rust never holds a node no session can run. Importing a `GraphDef` skips it: a graph
    /// with an unused branch no kernel runs still imports, as in TensorFlow. The default
    /// accepts every node.
    /// Errors: `InvalidArgument` naming the op and the dtype ("Reciprocal has no kernel
    /// for dtype int64").
    fn check_kernel(&self, node: &Node) -> Result<()> {
        let _ = node;
        Ok(())
    }
}
