//! Shared by tests/while_loop_*.rs: the programs of scripts/gen_while_loop.py built again
//! here with `ops::while_loop` (same names as TensorFlow's), and TensorFlow 2.21's values
//! for them (tests/data/while_loop/expected.json).
#![allow(dead_code)]

use serde_json::Value;
use tensorgraph::ops::{self, TensorArrayOptions, WhileOptions};
use tensorgraph::{DType, Graph, Output, Result, Scope, Session, Shape, Tensor};

/// The directory of the while_loop test data.
pub fn data_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/while_loop")
}

/// expected.json.
pub fn expected() -> Value {
    serde_json::from_str(&std::fs::read_to_string(data_dir().join("expected.json")).unwrap()).unwrap()
}

/// A JSON tensor `{dtype, shape, values}` as a Tensor.
pub fn tensor(v: &Value) -> Tensor {
    let shape: Vec<usize> = v["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
    let values = v["values"].as_array().unwrap();
    match v["dtype"].as_str().unwrap() {
        "bool" => Tensor::new(&shape, values.iter().map(|b| b.as_bool().unwrap()).collect()).unwrap(),
        dtype => {
            let dt = match dtype {
                "float32" => DType::Float,
                "int32" => DType::Int32,
                d => panic!("dtype {d}"),
            };
            let f: Vec<f64> = values.iter().map(|x| x.as_f64().unwrap()).collect();
            Tensor::from_f64(dt, &shape, &f).unwrap()
        }
    }
}

/// The feeds of expected.json for graph `g` (those whose placeholder exists).
pub fn feeds(g: &Graph, e: &Value) -> Vec<(Output, Tensor)> {
    e["feeds"].as_object().unwrap().iter().filter_map(|(k, v)| Some((g.tensor_by_name(k).ok()?, tensor(v)))).collect()
}

/// Runs `fetches` on `g` with expected.json's feeds (`p` overridden by `p`).
pub fn run(g: &Graph, fetches: &[Output], p: Option<bool>) -> Result<Vec<Tensor>> {
    let e = expected();
    let mut fs = feeds(g, &e);
    if let Some(p) = p {
        for (o, t) in &mut fs {
            if o.name() == "p:0" {
                *t = Tensor::scalar(p);
            }
        }
    }
    let sess = Session::new(g)?;
    let feeds: Vec<(&Output, Tensor)> = fs.iter().map(|(o, t)| (o, t.clone())).collect();
    sess.run(&feeds, &fetches.iter().collect::<Vec<_>>(), &[])
}

/// Asserts `got` equals TensorFlow's `want` (JSON) to float32 precision.
pub fn assert_tf(what: &str, got: &Tensor, want: &Value, rtol: f64) {
    let w = tensor(want);
    assert_eq!(got.shape(), w.shape(), "{what}: shape");
    let (gv, wv) = (got.to_f64_vec().unwrap(), w.to_f64_vec().unwrap());
    for (j, (a, b)) in gv.iter().zip(&wv).enumerate() {
        assert!((a - b).abs() <= 1e-5 + rtol * b.abs(), "{what}[{j}]: got {a}, TensorFlow {b}");
    }
}

fn c32(s: &Scope, name: &str, v: f32) -> Output {
    ops::constant(&s.named(name), Tensor::scalar(v)).unwrap()
}

fn ci(s: &Scope, name: &str, v: i32) -> Output {
    ops::constant(&s.named(name), Tensor::scalar(v)).unwrap()
}

/// Python's `x + c` / `x - c` / `c - x` / `x * c` with a constant: the op's name scope
/// holds the constant (`add/y`, `sub/x`), as TensorFlow's operator overloads.
pub fn add_c(s: &Scope, x: &Output, c: f64) -> Result<Output> {
    let (o, inner) = s.op_scope("add");
    let y = ops::constant(&inner.named("y"), Tensor::from_f64(x.dtype(), &[], &[c])?)?;
    ops::add(&o, x, &y)
}

/// Python's `c - x`.
pub fn rsub_c(s: &Scope, c: f64, x: &Output) -> Result<Output> {
    let (o, inner) = s.op_scope("sub");
    let y = ops::constant(&inner.named("x"), Tensor::from_f64(x.dtype(), &[], &[c])?)?;
    ops::sub(&o, &y, x)
}

/// `tf.reshape(x, dims)`: `Reshape` with its `Reshape/shape` constant.
pub fn reshape_c(s: &Scope, x: &Output, dims: &[i32]) -> Result<Output> {
    let (o, inner) = s.op_scope("Reshape");
    let shape = ops::constant(&inner.named("shape"), Tensor::new(&[dims.len()], dims.to_vec())?)?;
    ops::reshape(&o, x, &shape)
}

fn opts(name: &str) -> WhileOptions {
    WhileOptions { name: name.into(), ..Default::default() }
}

/// The GRU cell of the script.
pub fn gru_cell(s: &Scope, x: &Output, h: &Output, w: &[Output]) -> Result<Output> {
    let z = ops::sigmoid(s, &ops::add(s, &ops::matmul(s, x, &w[0])?, &ops::matmul(s, h, &w[1])?)?)?;
    let r = ops::sigmoid(s, &ops::add(s, &ops::matmul(s, x, &w[2])?, &ops::matmul(s, h, &w[3])?)?)?;
    let xh = ops::matmul(s, x, &w[4])?;
    let rh = ops::mul(s, &r, h)?;
    let hc = ops::tanh(s, &ops::add(s, &xh, &ops::matmul(s, &rh, &w[5])?)?)?;
    let keep = ops::mul(s, &rsub_c(s, 1.0, &z)?, h)?;
    let new = ops::mul(s, &z, &hc)?;
    ops::add(s, &keep, &new)
}

/// A gradient case: its name, y and xs.
pub type Case = (&'static str, Output, Vec<Output>);

/// The graph of scripts/gen_while_loop.py's `build()`, built here; returns it and the
/// gradient cases' (name, y) in the script's order.
pub fn build() -> (Graph, Vec<Case>) {
    let g = Graph::new();
    let s = g.scope();
    let x = ops::placeholder(&s.named("x"), DType::Float, Shape::scalar()).unwrap();
    let p = ops::placeholder(&s.named("p"), DType::Bool, Shape::scalar()).unwrap();
    let i0 = ci(&s, "i0", 0);
    let s0 = c32(&s, "s0", 0.0);
    let n = ci(&s, "n", 1000);
    let xx = x.clone();
    ops::while_loop(
        &s,
        |s, v| ops::less(s, &v[0], &n),
        |s, v| Ok(vec![add_c(s, &v[0], 1.0)?, ops::add(s, &v[1], &xx)?]),
        &[i0.clone(), s0.clone()],
        &opts("sum"),
    )
    .unwrap();
    let a0 = c32(&s, "a0", 0.0);
    let b0 = c32(&s, "b0", 1.0);
    let k = ci(&s, "k", 25);
    ops::while_loop(
        &s,
        |s, v| ops::less(s, &v[0], &k),
        |s, v| Ok(vec![add_c(s, &v[0], 1.0)?, v[2].clone(), ops::add(s, &v[1], &v[2])?]),
        &[i0.clone(), a0, b0],
        &opts("fib"),
    )
    .unwrap();
    let ten = ci(&s, "ten", 10);
    let m5 = ci(&s, "m5", 5);
    let m100 = ci(&s, "m100", 100);
    for (name, m) in [("capped", &m5), ("uncapped", &m100)] {
        ops::while_loop(
            &s,
            |s, v| ops::less(s, &v[0], &ten),
            |s, v| Ok(vec![add_c(s, &v[0], 1.0)?, ops::mul(s, &v[1], &x)?]),
            &[i0.clone(), x.clone()],
            &WhileOptions { maximum_iterations: Some(m.clone()), ..opts(name) },
        )
        .unwrap();
    }
    let three = ci(&s, "three", 3);
    ops::while_loop(
        &s,
        |s, v| ops::less(s, &v[0], &three),
        |s, v| {
            let j0 = ci(s, "j0", 0);
            let i = v[0].clone();
            let r = ops::while_loop(
                s,
                |s, u| ops::less(s, &u[0], &i),
                |s, u| {
                    let c = ops::cast(s, &u[0], DType::Float)?;
                    Ok(vec![add_c(s, &u[0], 1.0)?, ops::add(s, &u[1], &ops::mul(s, &x, &c)?)?])
                },
                &[j0, v[1].clone()],
                &WhileOptions::default(),
            )?;
            Ok(vec![add_c(s, &v[0], 1.0)?, r[1].clone()])
        },
        &[i0.clone(), s0.clone()],
        &opts("nested"),
    )
    .unwrap();
    let five = ci(&s, "five", 5);
    ops::cond(
        &s,
        &p,
        |s| {
            let r = ops::while_loop(
                s,
                |s, v| ops::less(s, &v[0], &five),
                |s, v| Ok(vec![add_c(s, &v[0], 1.0)?, ops::mul(s, &v[1], &x)?]),
                &[i0.clone(), x.clone()],
                &WhileOptions::default(),
            )?;
            Ok(vec![r[1].clone()])
        },
        |s| Ok(vec![ops::mul(s, &x, &x)?]),
    )
    .unwrap();
    // a TensorArray written in a loop
    let size = ci(&s, "size", 5);
    let (ta, flow) = ops::tensor_array_v3(&s.named("ta"), &size, DType::Float, &TensorArrayOptions::default()).unwrap();
    let r = ops::while_loop(
        &s,
        |s, v| ops::less(s, &v[0], &size),
        |s, v| {
            let c = ops::mul(s, &ops::cast(s, &v[0], DType::Float)?, &x)?;
            let f = ops::tensor_array_write_v3(s, &ta, &v[0], &c, &v[1])?;
            Ok(vec![add_c(s, &v[0], 1.0)?, f])
        },
        &[i0.clone(), flow],
        &opts("ta_loop"),
    )
    .unwrap();
    let idx = ops::constant(&s.named("idx"), Tensor::new(&[5], vec![0i32, 1, 2, 3, 4]).unwrap()).unwrap();
    ops::tensor_array_gather_v3(&s.named("gathered"), &ta, &idx, &r[1], DType::Float, &Shape::unknown()).unwrap();
    // x = tanh(W x), 4 steps
    let w = ops::placeholder(&s.named("W"), DType::Float, Shape::known(&[3, 3])).unwrap();
    let x0 = ops::placeholder(&s.named("x0"), DType::Float, Shape::known(&[3, 1])).unwrap();
    let four = ci(&s, "four", 4);
    let r = ops::while_loop(
        &s,
        |s, v| ops::less(s, &v[0], &four),
        |s, v| Ok(vec![add_c(s, &v[0], 1.0)?, ops::tanh(s, &ops::matmul(s, &w, &v[1])?)?]),
        &[i0.clone(), x0.clone()],
        &opts("tanh"),
    )
    .unwrap();
    let sq = ops::mul(&s, &r[1], &r[1]).unwrap();
    let tanh_y = ops::reduce_sum(&s.named("tanh_y"), &sq, None, false).unwrap();
    // the GRU over TensorArrays
    let xs = ops::placeholder(&s.named("xs"), DType::Float, Shape::known(&[5, 2, 3])).unwrap();
    let mut ws = Vec::new();
    for (nm, d) in [("Wz", [3, 4]), ("Uz", [4, 4]), ("Wr", [3, 4]), ("Ur", [4, 4]), ("Wh", [3, 4]), ("Uh", [4, 4])] {
        ws.push(ops::placeholder(&s.named(nm), DType::Float, Shape::known(&d)).unwrap());
    }
    let (xin, xf) = ops::tensor_array_v3(&s.named("xin"), &size, DType::Float, &TensorArrayOptions::default()).unwrap();
    let xf = ops::tensor_array_scatter_v3(&s.named("xin_scatter"), &xin, &idx, &xs, &xf).unwrap();
    let (hout, hf) =
        ops::tensor_array_v3(&s.named("hout"), &size, DType::Float, &TensorArrayOptions::default()).unwrap();
    let h0 = ops::constant(&s.named("h0"), Tensor::zeros(DType::Float, &[2, 4])).unwrap();
    let r = ops::while_loop(
        &s,
        |s, v| ops::less(s, &v[0], &size),
        |s, v| {
            let xt = reshape_c(s, &ops::tensor_array_read_v3(s, &xin, &v[0], &xf, DType::Float)?, &[2, 3])?;
            let h2 = gru_cell(s, &xt, &v[1], &ws)?;
            let t1 = add_c(s, &v[0], 1.0)?;
            Ok(vec![t1, h2.clone(), ops::tensor_array_write_v3(s, &hout, &v[0], &h2, &v[2])?])
        },
        &[i0.clone(), h0, hf],
        &opts("gru"),
    )
    .unwrap();
    let hs = ops::tensor_array_gather_v3(&s.named("hs"), &hout, &idx, &r[2], DType::Float, &Shape::unknown()).unwrap();
    let a = ops::reduce_sum(&s, &ops::mul(&s, &hs, &hs).unwrap(), Some(&[0, 1, 2]), false).unwrap();
    let b = ops::reduce_sum(&s, &r[1], Some(&[0, 1]), false).unwrap();
    let gru_y = s.op("AddV2", "gru_y").input(&a).input(&b).attr("T", DType::Float).build_output().unwrap();
    // the nested loop gradient
    let wn = ops::placeholder(&s.named("wn"), DType::Float, Shape::scalar()).unwrap();
    let two = ci(&s, "two", 2);
    let r = ops::while_loop(
        &s,
        |s, v| ops::less(s, &v[0], &three),
        |s, v| {
            let j0 = ci(s, "j0", 0);
            let r = ops::while_loop(
                s,
                |s, u| ops::less(s, &u[0], &two),
                |s, u| Ok(vec![add_c(s, &u[0], 1.0)?, ops::tanh(s, &ops::mul(s, &u[1], &wn)?)?]),
                &[j0, v[1].clone()],
                &WhileOptions::default(),
            )?;
            Ok(vec![add_c(s, &v[0], 1.0)?, ops::add(s, &r[1], &x)?])
        },
        &[i0.clone(), x.clone()],
        &opts("nest2"),
    )
    .unwrap();
    let nest2_y = ops::identity(&s.named("nest2_y"), &r[1]).unwrap();
    // a cond inside a loop body, with a cond on p nested in its true branch
    let wc = ops::placeholder(&s.named("wc"), DType::Float, Shape::scalar()).unwrap();
    let r = ops::while_loop(
        &s,
        |s, v| ops::less(s, &v[0], &four),
        |s, v| {
            let (mo, mi) = s.op_scope("mod");
            let m = ops::floor_mod(&mo, &v[0], &ci(&mi, "y", 2))?;
            let (eo, ei) = s.op_scope("Equal");
            let even = ops::equal(&eo, &m, &ci(&ei, "y", 0))?;
            let u = &v[1];
            let t = ops::cond(
                s,
                &even,
                |s| {
                    ops::cond(
                        s,
                        &p,
                        |s| Ok(vec![ops::tanh(s, &ops::mul(s, u, &wc)?)?]),
                        |s| Ok(vec![ops::mul(s, u, &wc)?]),
                    )
                },
                |s| Ok(vec![ops::add(s, &ops::mul(s, u, u)?, &wc)?]),
            )?;
            Ok(vec![add_c(s, &v[0], 1.0)?, t[0].clone()])
        },
        &[i0.clone(), x.clone()],
        &opts("condloop"),
    )
    .unwrap();
    let condloop_y = ops::identity(&s.named("condloop_y"), &r[1]).unwrap();
    let cond_merge = g.tensor_by_name("cond/Merge:0").unwrap();
    let sum_exit = g.tensor_by_name("sum/Exit_1:0").unwrap();
    let capped_exit = g.tensor_by_name("capped/Exit_2:0").unwrap();
    let nested_exit = g.tensor_by_name("nested/Exit_1:0").unwrap();
    let cases = vec![
        ("tanh", tanh_y, vec![w, x0]),
        ("gru", gru_y, std::iter::once(xs).chain(ws).collect()),
        ("nest2", nest2_y, vec![wn, x.clone()]),
        ("sum", sum_exit, vec![x.clone()]),
        ("capped", capped_exit, vec![x.clone()]),
        ("nested", nested_exit, vec![x.clone()]),
        ("condloop", condloop_y, vec![x.clone(), wc]),
        ("incond", cond_merge, vec![x]),
    ];
    (g, cases)
}
