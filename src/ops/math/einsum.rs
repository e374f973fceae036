//! `Einsum` (`tf.einsum`) of one or two operands, as attention layers use it
//! (`bij,bjk->bik`, `bhqd,bhkd->bhqk`, `bqd,de->bqe`, ...): the equation is parsed once when
//! the node is prepared, and each run lowers it to sums over labels only one operand has,
//! transposes and reshapes into one broadcast batched matrix product
//! (the batched product kernel `ops::kernels::batch_matmul`), and a final transpose. The
//! ellipsis (`...`) stands for broadcast batch dimensions. Repeated labels within one
//! operand (traces, diagonals) are refused. Its gradient is TensorFlow's `_EinsumGrad`,
//! built of `Einsum`s.

use super::binary::sum_over;
use crate::error::{Error, Result};
use crate::graph::{AttrValue, Node, Output, Scope};
use crate::ops::array::{broadcast_to, concat, constant, gather, reshape, shape, strided_slice_indexing, SliceMasks};
use crate::ops::kernels::{batch_matmul, broadcast_shape, reduce, Num};
use crate::ops::{GradCtx, InferCtx, Kernel, KernelCtx, RegisteredOp};
use crate::tensor::{fmt_dims, DType, Shape, Tensor};

pub(super) static DEFS: &[&dyn RegisteredOp] = &[&Einsum];

const DTYPES: &[DType] = &[DType::Float, DType::Double, DType::Int32, DType::Int64];

/// One subscript of an operand: a letter, or the ellipsis.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Sub {
    Letter(u8),
    Ellipsis,
}

/// A parsed equation: the subscripts of each input and of the output.
#[derive(Clone, Debug)]
struct Equation {
    text: String,
    inputs: Vec<Vec<Sub>>,
    output: Vec<Sub>,
}

/// Label ids: letters are their byte; ellipsis dimension `j` (aligned to the right) is
/// `ELLIPSIS + j`.
const ELLIPSIS: u32 = 256;

/// Parses `equation` for `n` inputs. Errors: `InvalidArgument` with TensorFlow's messages
/// for a missing `->`, another number of inputs, characters other than letters and `...`,
/// two ellipses in one operand, or an output label no input has.
fn parse(equation: &str, n: usize) -> Result<Equation> {
    let text: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let parts: Vec<&str> = text.split("->").collect();
    let [ins, out] = parts[..] else {
        return Err(Error::invalid_argument(format!("Expecting exactly one '->' in einsum equation: {equation}")));
    };
    let ins: Vec<&str> = ins.split(',').collect();
    if ins.len() != n {
        return Err(Error::invalid_argument(format!(
            "Expected {} inputs for equation {equation} but got: {n}",
            ins.len()
        )));
    }
    let subs = |s: &str| -> Result<Vec<Sub>> {
        let mut v = Vec::new();
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i..].starts_with(b"...") {
                if v.contains(&Sub::Ellipsis) {
                    return Err(Error::invalid_argument(format!(
                        "Found more than one ellipsis in subscripts '{s}' of einsum equation: {equation}"
                    )));
                }
                v.push(Sub::Ellipsis);
                i += 3;
            } else if b[i].is_ascii_alphabetic() {
                v.push(Sub::Letter(b[i]));
                i += 1;
            } else {
                return Err(Error::invalid_argument(format!(
                    "Invalid character '{}' in einsum equation: {equation}",
                    b[i] as char
                )));
            }
        }
        Ok(v)
    };
    let inputs = ins.iter().map(|s| subs(s)).collect::<Result<Vec<_>>>()?;
    let output = subs(out)?;
    for s in &output {
        if let Sub::Letter(l) = s {
            if !inputs.iter().any(|i| i.contains(s)) {
                return Err(Error::invalid_argument(format!(
                    "Einsum output subscripts for equation '{equation}' has label '{}' which is not present in the input subscripts",
                    *l as char
                )));
            }
        }
    }
    Ok(Equation { text: equation.to_string(), inputs, output })
}

impl Equation {
    /// The label ids of each input (ranks `ranks`) and of the output, with every ellipsis
    /// expanded, and the number of broadcast dimensions. Errors: `InvalidArgument` for a
    /// rank that does not fit the subscripts, or an output without ellipsis while an input
    /// has broadcast dimensions.
    fn expand(&self, ranks: &[usize]) -> Result<(Vec<Vec<u32>>, Vec<u32>, usize)> {
        let mut ells = Vec::with_capacity(ranks.len());
        for (subs, &rank) in self.inputs.iter().zip(ranks) {
            let letters = subs.iter().filter(|s| **s != Sub::Ellipsis).count();
            let has = subs.contains(&Sub::Ellipsis);
            if rank < letters || (!has && rank != letters) {
                let want = if has { format!("at least {letters}") } else { letters.to_string() };
                return Err(Error::invalid_argument(format!(
                    "Shape must be rank {want} but is rank {rank} (subscripts of an input of einsum equation {})",
                    self.text
                )));
            }
            ells.push(rank - letters);
        }
        let e = ells.iter().copied().max().unwrap_or(0);
        let ids = |subs: &[Sub], ell: usize| -> Vec<u32> {
            let mut v = Vec::new();
            for s in subs {
                match s {
                    Sub::Letter(l) => v.push(*l as u32),
                    Sub::Ellipsis => v.extend((e - ell..e).map(|j| ELLIPSIS + j as u32)),
                }
            }
            v
        };
        let inputs = self.inputs.iter().zip(&ells).map(|(s, &n)| ids(s, n)).collect();
        if e > 0 && !self.output.contains(&Sub::Ellipsis) {
            return Err(Error::invalid_argument(format!(
                "Einsum equation {} has no ellipsis in its output, but the inputs' ellipsis stands for {e} dimension(s): they must be empty",
                self.text
            )));
        }
        Ok((inputs, ids(&self.output, e), e))
    }
}

/// The size of every label over the inputs (`None`: unknown), labels of one letter
/// merged, ellipsis dimensions broadcast. Errors: `InvalidArgument` for a letter with two
/// sizes or ellipsis dimensions that do not broadcast.
fn label_sizes(labels: &[Vec<u32>], dims: &[&[Option<usize>]]) -> Result<Vec<(u32, Option<usize>)>> {
    let mut out: Vec<(u32, Option<usize>)> = Vec::new();
    for (ls, ds) in labels.iter().zip(dims) {
        for (&l, &d) in ls.iter().zip(ds.iter()) {
            match out.iter_mut().find(|(k, _)| *k == l) {
                None => out.push((l, d)),
                Some((_, cur)) => {
                    *cur = match (*cur, d) {
                        (Some(a), Some(b)) if a == b => Some(a),
                        (Some(1), Some(b)) if l >= ELLIPSIS => Some(b),
                        (Some(a), Some(1)) if l >= ELLIPSIS => Some(a),
                        (Some(a), Some(b)) => {
                            return Err(Error::invalid_argument(format!(
                                "Dimensions must be equal, but are {a} and {b} (einsum label {})",
                                label_name(l)
                            )))
                        }
                        (Some(1), None) | (None, Some(1)) if l >= ELLIPSIS => None,
                        (a, b) => a.or(b),
                    }
                }
            }
        }
    }
    Ok(out)
}

fn label_name(l: u32) -> String {
    if l >= ELLIPSIS {
        format!("... dimension {}", l - ELLIPSIS)
    } else {
        (l as u8 as char).to_string()
    }
}

/// The equation attr of `node`.
fn equation_of(node: &Node) -> Result<String> {
    match node.attr("equation")? {
        AttrValue::String(s) => Ok(String::from_utf8_lossy(s).into_owned()),
        v => Err(Error::invalid_argument(format!("attr 'equation' of '{}' must be a string, got {v:?}", node.name))),
    }
}

/// `Einsum(inputs)` (attrs `equation`, `N` = 1 or 2, `T`): NumPy's Einstein summation of
/// one or two operands, the equation written with `->` (`"bij,bjk->bik"`); labels in
/// the output are kept in its order, the others summed; `...` stands for broadcast
/// batch dimensions. float32, float64, int32, int64. Errors: `InvalidArgument` with
/// TensorFlow's messages for a malformed equation, a rank that does not fit, a label of
/// two sizes, an output label no input has; `Unimplemented` for a label repeated within
/// one operand or more than two operands. Gradient: TensorFlow's `_EinsumGrad`
/// (`Einsum`s of the incoming gradient with the other operand).
pub struct Einsum;
impl RegisteredOp for Einsum {
    fn op_type(&self) -> &'static str {
        "Einsum"
    }
    fn infer(&self, ctx: &InferCtx) -> Result<Vec<(DType, Shape)>> {
        if ctx.inputs.is_empty() {
            return Err(Error::invalid_argument("Einsum needs at least one input"));
        }
        let t = ctx.same_dtypes()?;
        let eq = parse(&equation_of(ctx.node)?, ctx.inputs.len())?;
        let dims: Option<Vec<&[Option<usize>]>> = ctx.inputs.iter().map(|(_, s)| s.dims()).collect();
        let Some(dims) = dims else {
            return Ok(vec![(t, Shape::unknown())]);
        };
        let ranks: Vec<usize> = dims.iter().map(|d| d.len()).collect();
        let (labels, out, _) = eq.expand(&ranks)?;
        let sizes = label_sizes(&labels, &dims)?;
        let out: Vec<Option<usize>> =
            out.iter().map(|l| sizes.iter().find(|(k, _)| k == l).and_then(|(_, d)| *d)).collect();
        Ok(vec![(t, Shape::partial(&out))])
    }
    fn prepare(&'static self, node: &Node) -> Result<Box<dyn Kernel>> {
        let n = node.inputs.len();
        if n > 2 {
            return Err(Error::unimplemented(format!(
                "Einsum '{}' has {n} operands; tensorgraph computes one or two (chain them)",
                node.name
            )));
        }
        let t = node.attr_type("T")?;
        if !DTYPES.contains(&t) {
            return Err(super::binary::no_kernel("Einsum", t));
        }
        let eq = parse(&equation_of(node)?, n)?;
        for subs in eq.inputs.iter().chain([&eq.output]) {
            let letters: Vec<&Sub> = subs.iter().filter(|s| **s != Sub::Ellipsis).collect();
            if (1..letters.len()).any(|i| letters[..i].contains(&letters[i])) {
                return Err(Error::unimplemented(format!(
                    "Einsum '{}': equation {} repeats a label within one operand (a trace or diagonal), which tensorgraph does not compute",
                    node.name, eq.text
                )));
            }
        }
        Ok(Box::new(EinsumKernel { eq, dtype: t }))
    }
    fn gradient(&self, ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
        einsum_grad(ctx)
    }
}

/// A prepared `Einsum`: the parsed equation and the dtype.
struct EinsumKernel {
    eq: Equation,
    dtype: DType,
}

impl Kernel for EinsumKernel {
    fn compute(&self, ctx: &mut KernelCtx) -> Result<Vec<Tensor>> {
        crate::dispatch_numeric!(self.dtype, "Einsum", T => Ok(vec![run::<T>(&self.eq, &ctx.inputs)?]))
    }
}

/// Sums `x` (labels `labels`) over the labels `keep` lacks; returns it and its labels.
fn sum_out<T: Num>(x: &Tensor, labels: &[u32], keep: impl Fn(u32) -> bool) -> Result<(Tensor, Vec<u32>)> {
    let axes: Vec<usize> = (0..labels.len()).filter(|&i| !keep(labels[i])).collect();
    if axes.is_empty() {
        return Ok((x.clone(), labels.to_vec()));
    }
    let kept = labels.iter().copied().filter(|&l| keep(l)).collect();
    Ok((reduce::<T>(x, &axes, false, T::ZERO, |a, b| a + b)?, kept))
}

/// `x` (labels `labels`) with its dimensions reordered to `order`.
fn permute(x: &Tensor, labels: &[u32], order: &[u32]) -> Result<Tensor> {
    let perm: Vec<usize> = order.iter().map(|l| labels.iter().position(|k| k == l).unwrap_or(0)).collect();
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return Ok(x.clone());
    }
    let shape: Vec<usize> = perm.iter().map(|&p| x.shape()[p]).collect();
    let mut strides = vec![1usize; x.rank()];
    for i in (0..x.rank().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * x.shape()[i + 1];
    }
    let mut idx = vec![0usize];
    for (&p, &n) in perm.iter().zip(&shape) {
        let step = strides[p];
        idx = idx.iter().flat_map(|&b| (0..n).map(move |k| b + k * step)).collect();
    }
    Tensor::from_storage(&shape, x.storage().gather(&idx))
}

/// Computes the equation on concrete inputs of element type `T`.
fn run<T: Num>(eq: &Equation, inputs: &[Tensor]) -> Result<Tensor> {
    let ranks: Vec<usize> = inputs.iter().map(|t| t.rank()).collect();
    let (labels, out, _) = eq.expand(&ranks)?;
    let dims: Vec<Vec<Option<usize>>> = inputs.iter().map(|t| t.shape().iter().map(|&d| Some(d)).collect()).collect();
    let dim_refs: Vec<&[Option<usize>]> = dims.iter().map(|d| d.as_slice()).collect();
    label_sizes(&labels, &dim_refs)?;
    let in_out = |l: u32| out.contains(&l);
    if inputs.len() == 1 {
        let (x, ls) = sum_out::<T>(&inputs[0], &labels[0], in_out)?;
        return permute(&x, &ls, &out);
    }
    let (la, lb) = (&labels[0], &labels[1]);
    let (a, la) = sum_out::<T>(&inputs[0], la, |l| in_out(l) || lb.contains(&l))?;
    let (b, lb) = sum_out::<T>(&inputs[1], lb, |l| in_out(l) || la.contains(&l))?;
    let batch: Vec<u32> = out.iter().copied().filter(|l| la.contains(l) && lb.contains(l)).collect();
    let contract: Vec<u32> = la.iter().copied().filter(|l| lb.contains(l) && !in_out(*l)).collect();
    let free_a: Vec<u32> = la.iter().copied().filter(|l| !lb.contains(l)).collect();
    let free_b: Vec<u32> = lb.iter().copied().filter(|l| !la.contains(l)).collect();
    let size = |x: &Tensor, ls: &[u32], l: u32| x.shape()[ls.iter().position(|k| *k == l).unwrap_or(0)];
    let prod = |x: &Tensor, ls: &[u32], group: &[u32]| group.iter().map(|&l| size(x, ls, l)).product::<usize>();
    let operand = |x: &Tensor, ls: &[u32], mid: &[u32], last: &[u32]| -> Result<Tensor> {
        let order: Vec<u32> = batch.iter().chain(mid).chain(last).copied().collect();
        let mut shape: Vec<usize> = batch.iter().map(|&l| size(x, ls, l)).collect();
        shape.extend([prod(x, ls, mid), prod(x, ls, last)]);
        permute(x, ls, &order)?.reshape(&shape)
    };
    let k_a = prod(&a, &la, &contract);
    let k_b = prod(&b, &lb, &contract);
    if k_a != k_b {
        return Err(Error::invalid_argument(format!(
            "einsum {}: the summed labels have sizes {} and {} in the two inputs {} and {}",
            eq.text,
            k_a,
            k_b,
            fmt_dims(inputs[0].shape()),
            fmt_dims(inputs[1].shape())
        )));
    }
    let x = operand(&a, &la, &free_a, &contract)?;
    let y = operand(&b, &lb, &contract, &free_b)?;
    let r = batch_matmul(&x, &y, false, false)?;
    let batch_dims = broadcast_shape(&x.shape()[..batch.len()], &y.shape()[..batch.len()])?;
    let mut shape = batch_dims;
    shape.extend(free_a.iter().map(|&l| size(&a, &la, l)));
    shape.extend(free_b.iter().map(|&l| size(&b, &lb, l)));
    let ls: Vec<u32> = batch.iter().chain(&free_a).chain(&free_b).copied().collect();
    permute(&r.reshape(&shape)?, &ls, &out)
}

/// TensorFlow's `_EinsumGrad`.
fn einsum_grad(ctx: &GradCtx) -> Result<Vec<Option<Output>>> {
    let s = ctx.scope;
    let eq = equation_of(ctx.node)?;
    let eq: String = eq.chars().filter(|c| !c.is_whitespace()).collect();
    let (input_subs, output_subs) = eq.split_once("->").unwrap_or((&eq, ""));
    let g = ctx.grad(0)?;
    if ctx.inputs.len() == 1 {
        let x = &ctx.inputs[0];
        let reduced = reduced_labels(input_subs, &format!("{output_subs}..."));
        if reduced.is_empty() {
            return Ok(vec![Some(einsum(s, &format!("{output_subs}->{input_subs}"), &[g])?)]);
        }
        return Ok(vec![Some(grad_reduced(s, &g, output_subs, input_subs, x, &reduced)?)]);
    }
    let (xs, ys) = input_subs.split_once(',').unwrap_or((input_subs, ""));
    let (mut xs, mut ys) = (xs.to_string(), ys.to_string());
    if output_subs.contains("...") {
        for subs in [&mut xs, &mut ys] {
            if !subs.contains("...") {
                subs.push_str("...");
            }
        }
    }
    let (x, y) = (&ctx.inputs[0], &ctx.inputs[1]);
    let gx = grad_wrt(s, &g, y, x, &xs, &ys, output_subs)?;
    let gy = grad_wrt(s, &g, x, y, &ys, &xs, output_subs)?;
    if !output_subs.contains("...") {
        return Ok(vec![Some(gx), Some(gy)]);
    }
    let (bx, by) = (bcast_range(&xs), bcast_range(&ys));
    let static_part = |o: &Output, (b, e): (usize, usize)| o.shape().to_vec().map(|d| d[b..d.len() - e].to_vec());
    if let (Some(p), Some(q)) = (static_part(x, bx), static_part(y, by)) {
        if p == q {
            return Ok(vec![Some(gx), Some(gy)]);
        }
    }
    let shx = shape(s, x)?;
    let shy = shape(&s.named("Shape_1"), y)?;
    let part = |sh: &Output, (b, e): (usize, usize)| {
        let masks = SliceMasks { end: i64::from(e == 0), ..Default::default() };
        strided_slice_indexing(s, sh, &[b as i64], &[-(e as i64)], &[1], masks)
    };
    let (px, py) = (part(&shx, bx)?, part(&shy, by)?);
    let args = s.op("BroadcastGradientArgs", "BroadcastGradientArgs").input(&px).input(&py).attr("T", DType::Int32);
    let args = args.build()?;
    let shift = |o: Output, b: usize, name: &str| -> Result<Output> {
        let c = constant(&s.named(&format!("{name}/x")), Tensor::scalar(b as i32))?;
        s.op("AddV2", name).input(&c).input(&o).attr("T", DType::Int32).build_output()
    };
    let rx = shift(args.output(0)?, bx.0, "add")?;
    let ry = shift(args.output(1)?, by.0, "add_1")?;
    let gx = reshape(s, &sum_over(s, &gx, &rx)?, &shx)?;
    let gy = reshape(&s.named("Reshape_1"), &sum_over(&s.named("Sum_1"), &gy, &ry)?, &shy)?;
    Ok(vec![Some(gx), Some(gy)])
}

/// The labels of `subs` absent from `others`, in order of first appearance.
fn reduced_labels(subs: &str, others: &str) -> String {
    let mut out = String::new();
    for c in subs.chars().filter(|c| c.is_ascii_alphabetic()) {
        if !others.contains(c) && !out.contains(c) {
            out.push(c);
        }
    }
    out
}

/// The axes the ellipsis of `subs` covers, as (start, count from the end).
fn bcast_range(subs: &str) -> (usize, usize) {
    match subs.find("...") {
        None => (0, 0),
        Some(start) => (start, subs.len() - start - 3),
    }
}

/// TensorFlow's `_GetGradWrt`: the gradient of `input` (subscripts `input_subs`) of a
/// two-operand einsum, before un-broadcasting.
fn grad_wrt(
    s: &Scope,
    g: &Output,
    other: &Output,
    input: &Output,
    input_subs: &str,
    other_subs: &str,
    output_subs: &str,
) -> Result<Output> {
    let reduced = reduced_labels(input_subs, &format!("{output_subs}{other_subs}"));
    let left: String = input_subs.chars().filter(|c| !reduced.contains(*c)).collect();
    let gr = einsum(s, &format!("{output_subs},{other_subs}->{left}"), &[g.clone(), other.clone()])?;
    if reduced.is_empty() {
        return Ok(gr);
    }
    grad_reduced(s, &gr, &left, input_subs, input, &reduced)
}

/// TensorFlow's `_GetGradReduced`: the gradient of `input` of the unary einsum
/// `input_subs->output_subs` summing the labels `reduced`, from the output's gradient.
fn grad_reduced(
    s: &Scope,
    g: &Output,
    output_subs: &str,
    input_subs: &str,
    input: &Output,
    reduced: &str,
) -> Result<Output> {
    let rank = input.shape().rank().ok_or_else(|| {
        Error::unimplemented(format!(
            "the gradient of an einsum summing labels {reduced} of {} needs that input's rank",
            input.name()
        ))
    })?;
    let axis = |c: char| -> usize {
        let (before, after) = input_subs.split_once("...").unwrap_or((input_subs, ""));
        match before.find(c) {
            Some(i) => i,
            None => rank - (after.len() - after.find(c).unwrap_or(0)),
        }
    };
    let axes: Vec<usize> = reduced.chars().map(axis).collect();
    let input_shape = shape(s, input)?;
    let without: String = input_subs.chars().filter(|c| !reduced.contains(*c)).collect();
    if without == output_subs {
        // the gradient reshaped to the input's rank (1 on the summed axes), broadcast back
        let keep: Vec<i32> = (0..rank).map(|i| i32::from(!axes.contains(&i))).collect();
        let drop: Vec<i32> = keep.iter().map(|k| 1 - k).collect();
        let keep = constant(&s.named("reduced_shape/keep"), Tensor::vector(keep))?;
        let drop = constant(&s.named("reduced_shape/drop"), Tensor::vector(drop))?;
        let kept = s.op("Mul", "mul").input(&input_shape).input(&keep).attr("T", DType::Int32).build_output()?;
        let red = s.op("AddV2", "add").input(&kept).input(&drop).attr("T", DType::Int32).build_output()?;
        return broadcast_to(s, &reshape(s, g, &red)?, &input_shape);
    }
    let idx = constant(&s.named("reduced_axes"), Tensor::vector(axes.iter().map(|&a| a as i32).collect()))?;
    let reduced_dims = gather(s, &input_shape, &idx, 0)?;
    let gshape = shape(&s.named("Shape_1"), g)?;
    let full = concat(s, &[reduced_dims, gshape.clone()], 0)?;
    let ones = constant(&s.named("ones"), Tensor::vector(vec![1i32; axes.len()]))?;
    let red = concat(s, &[ones, gshape], 0)?;
    let b = broadcast_to(s, &reshape(s, g, &red)?, &full)?;
    einsum(s, &format!("{reduced}{output_subs}->{input_subs}"), &[b])
}

/// `Einsum(inputs)` with `equation` (`tf.raw_ops.Einsum`), default name `Einsum`: as
/// [`Einsum`]. `tf.einsum` names the op `einsum/Einsum`: build it under
/// `s.name_scope("einsum")` for that.
pub fn einsum(s: &Scope, equation: &str, inputs: &[Output]) -> Result<Output> {
    let t = inputs.first().map(|x| x.dtype()).unwrap_or(DType::Float);
    s.op("Einsum", "Einsum")
        .inputs(inputs)
        .attr("equation", equation)
        .attr("N", inputs.len() as i64)
        .attr("T", t)
        .build_output()
}
