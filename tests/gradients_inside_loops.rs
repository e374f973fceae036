//! `gradients()` at tensors inside TF1 while loops, as TensorFlow 2.21's
//! `tf.compat.v1.gradients` with control flow v1 (tests/data/while_loop/inside_loop.json,
//! scripts/gen_grad_inside_loop.py): called inside a loop's body, the gradient of one
//! iteration (per-step gradients) to TensorFlow's values; the cases TensorFlow does not
//! support are errors (TensorFlow's message for the initial value of a loop variable).

use serde_json::Value;
use tensorgraph::ops::{self, WhileOptions};
use tensorgraph::train::gradients;
use tensorgraph::{Code, DType, Graph, Output, Scope, Session, Shape, Tensor};

fn expected() -> Value {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/while_loop/inside_loop.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The loops' inputs: placeholders `x` (the first v) and `w`, the counter's start 0 and
/// its bound 3.
fn loop_inputs(s: &Scope) -> [Output; 4] {
    let x = ops::placeholder(&s.named("x"), DType::Float, Shape::scalar()).unwrap();
    let w = ops::placeholder(&s.named("w"), DType::Float, Shape::scalar()).unwrap();
    let i0 = ops::constant(s, Tensor::scalar(0i32)).unwrap();
    let three = ops::constant(s, Tensor::scalar(3i32)).unwrap();
    [x, w, i0, three]
}

/// v <- tanh(v w) over 3 steps from x, acc summing each step's gradient of tanh(v w)
/// with respect to `wrt` ("w", "v" or "x"), taken inside the body; returns (v, acc) or
/// the error of gradients().
fn per_step(wrt: &str) -> (Graph, Result<(Output, Output), tensorgraph::Error>) {
    let g = Graph::new();
    let s = g.scope();
    let [x, w, i0, three] = loop_inputs(&s);
    let acc0 = ops::constant(&s, Tensor::scalar(0f32)).unwrap();
    let r = ops::while_loop(
        &s,
        |s, u| ops::less(s, &u[0], &three),
        |s, u| {
            let y = ops::tanh(s, &ops::mul(s, &u[1], &w)?)?;
            let wrt = match wrt {
                "w" => w.clone(),
                "v" => u[1].clone(),
                _ => x.clone(),
            };
            let d = gradients(std::slice::from_ref(&y), &[wrt], None)?[0].clone().expect("a gradient");
            let one = ops::constant(s, Tensor::scalar(1i32))?;
            Ok(vec![ops::add(s, &u[0], &one)?, y, ops::add(s, &u[2], &d)?])
        },
        &[i0, x.clone(), acc0],
        &WhileOptions::default(),
    );
    let r = r.map(|r| (r[1].clone(), r[2].clone()));
    (g, r)
}

fn run(g: &Graph, fetches: &[Output]) -> Vec<f64> {
    let e = expected();
    let x = g.tensor_by_name("x:0").unwrap();
    let w = g.tensor_by_name("w:0").unwrap();
    let feeds = [
        (&x, Tensor::scalar(e["feeds"]["x:0"].as_f64().unwrap() as f32)),
        (&w, Tensor::scalar(e["feeds"]["w:0"].as_f64().unwrap() as f32)),
    ];
    let out = Session::new(g).unwrap().run(&feeds, &fetches.iter().collect::<Vec<_>>(), &[]).unwrap();
    out.iter().map(|t| t.to_f64_vec().unwrap()[0]).collect()
}

#[test]
fn gradients_inside_a_body_are_per_step_gradients_equal_to_tensorflows() {
    let e = expected();
    for wrt in ["w", "v"] {
        let (g, r) = per_step(wrt);
        let (v, acc) = r.unwrap_or_else(|err| panic!("d/d{wrt}: {err}"));
        let got = run(&g, &[v, acc]);
        let want = &e[&format!("per_step_{wrt}")];
        for (k, (a, key)) in got.iter().zip(["v", "acc"]).enumerate() {
            let b = want[key].as_f64().unwrap();
            assert!((a - b).abs() <= 1e-5 + 1e-5 * b.abs(), "d/d{wrt} {k} ({key}): got {a}, TensorFlow {b}");
        }
    }
    // and by hand: d tanh(v w)/dw = (1 - tanh²(v w)) v, summed over the steps
    let (g, r) = per_step("w");
    let (v, acc) = r.unwrap();
    let (mut v0, w, mut sum) = (0.5f64, 1.3f64, 0.0);
    for _ in 0..3 {
        let t = (v0 * w).tanh();
        sum += (1.0 - t * t) * v0;
        v0 = t;
    }
    let got = run(&g, &[v, acc]);
    assert!((got[0] - v0).abs() < 1e-5 && (got[1] - sum).abs() < 1e-5, "got {got:?}, by hand {v0} {sum}");
}

#[test]
fn the_initial_value_of_a_loop_variable_from_inside_the_body_is_tensorflows_error() {
    let (_, r) = per_step("x");
    let err = r.expect_err("an error");
    assert_eq!(err.code, Code::InvalidArgument);
    assert!(err.to_string().contains(expected()["per_step_x_error"].as_str().unwrap()), "{err}");
}

/// y = tanh(v w) inside the loop, x = w or the body's v w; the loop's output.
fn loop_with_inside() -> (Graph, Output, Output, Output) {
    let g = Graph::new();
    let s = g.scope();
    let [x, w, i0, three] = loop_inputs(&s);
    let inside = std::cell::RefCell::new(None);
    let r = ops::while_loop(
        &s,
        |s, u| ops::less(s, &u[0], &three),
        |s, u| {
            let m = ops::mul(s, &u[1], &w)?;
            let y = ops::tanh(s, &m)?;
            *inside.borrow_mut() = Some((m, y.clone()));
            let one = ops::constant(s, Tensor::scalar(1i32))?;
            Ok(vec![ops::add(s, &u[0], &one)?, y])
        },
        &[i0, x],
        &WhileOptions::default(),
    )
    .unwrap();
    let (m, y) = inside.into_inner().unwrap();
    (g, m, y, r[1].clone())
}

#[test]
fn a_y_inside_a_loop_taken_from_outside_is_an_error() {
    // TensorFlow returns None for every x here (recorded in the JSON)
    assert_eq!(expected()["y_inside_called_after"], serde_json::json!(["None", "None"]));
    let (g, m, y, _) = loop_with_inside();
    let w = g.tensor_by_name("w:0").unwrap();
    let err = gradients(std::slice::from_ref(&y), &[w, m], None).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    assert!(
        err.to_string().contains(&format!(
            "{} is inside while loop 'while/while_context' and gradients() is called outside its body",
            y.name()
        )),
        "{err}"
    );
}

#[test]
fn an_x_inside_a_loop_is_an_error_naming_tensorflows_not_fetchable() {
    let fetch_err = expected()["x_inside_fetch_error"].as_str().unwrap().to_string();
    assert!(fetch_err.starts_with("InaccessibleTensorError") && fetch_err.contains("has been marked as not fetchable"));
    let (_, m, _, out) = loop_with_inside();
    let err = gradients(&[out], std::slice::from_ref(&m), None).unwrap_err();
    assert_eq!(err.code, Code::InvalidArgument);
    let msg = err.to_string();
    assert!(msg.contains(&format!("{} is inside while loop 'while/while_context'", m.name())), "{msg}");
    assert!(msg.contains("has been marked as not fetchable"), "{msg}");
}

#[test]
fn gradients_with_respect_to_a_loop_output_are_the_seed() {
    // an Exit as an x: its gradient is that of y with respect to it
    let (g, _, _, out) = loop_with_inside();
    let y = ops::mul(&g.scope(), &out, &out).unwrap();
    let d = gradients(std::slice::from_ref(&y), std::slice::from_ref(&out), None).unwrap()[0].clone().unwrap();
    let got = run(&g, &[out, d]);
    assert!((got[1] - 2.0 * got[0]).abs() < 1e-6, "{got:?}");
}
