//! Gradients of while loops (TensorFlow's gradient loops: forward counter, stacks of the
//! forward values, a gradient loop running the counter down, loop invariants' gradients
//! summed): loops built with `ops::while_loop` and loops TensorFlow wrote, against
//! TensorFlow 2.21's gradients (tests/data/while_loop, scripts/gen_while_loop.py) and
//! finite differences.

mod common;
mod while_loop_common;
use tensorgraph::format::proto::text::graph_def_from_text;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::ops::{self, TensorArrayOptions, WhileOptions};
use tensorgraph::train::gradients;
use tensorgraph::{DType, Graph, Output, Shape, Tensor};
use while_loop_common::{assert_tf, build, data_dir, expected, run};

/// Checks case `name`'s gradients on graph `g` (y and xs by name) against TensorFlow's.
fn check_case(g: &Graph, name: &str) {
    check_case_p(g, name, None);
}

/// As [`check_case`], with `p` fed as given (`Some(false)`: TensorFlow's `values_p_false`).
fn check_case_p(g: &Graph, name: &str, p: Option<bool>) {
    let e = expected();
    let case = &e["grads"][name];
    let y = g.tensor_by_name(case["y"].as_str().unwrap()).unwrap();
    let xs: Vec<Output> =
        case["xs"].as_array().unwrap().iter().map(|x| g.tensor_by_name(x.as_str().unwrap()).unwrap()).collect();
    let grads = gradients(&[y], &xs, None).unwrap_or_else(|e| panic!("{name}: {e}"));
    let grads: Vec<Output> = grads.into_iter().map(|g| g.unwrap_or_else(|| panic!("{name}: no gradient"))).collect();
    let got = run(g, &grads, p).unwrap_or_else(|e| panic!("{name}: {e}"));
    let key = if p == Some(false) { "values_p_false" } else { "values" };
    for (i, (t, want)) in got.iter().zip(case[key].as_array().unwrap()).enumerate() {
        assert_tf(&format!("{name} ({key}): gradient {i}"), t, want, 1e-4);
    }
}

#[test]
fn loop_gradients_built_here_equal_tensorflows() {
    for name in ["tanh", "sum", "capped", "gru", "nest2", "nested", "condloop", "incond"] {
        let (g, _) = build();
        check_case(&g, name);
    }
}

/// A cond inside a loop body (with a cond on p in one branch) and a loop inside a cond
/// branch, on both sides of p: the branch's forward values are pushed only when it runs
/// and popped through a Switch on the popped predicate, as TensorFlow's.
#[test]
fn conds_in_loops_and_loops_in_conds_have_tensorflows_gradients() {
    for name in ["condloop", "incond"] {
        for p in [true, false] {
            let (g, _) = build();
            check_case_p(&g, name, Some(p));
        }
    }
    // the gradient loop's pushes in the branch come before f_sync; the pops are guarded
    let (g, cases) = build();
    let (_, y, xs) = cases.iter().find(|c| c.0 == "condloop").unwrap();
    let before = g.num_ops();
    gradients(std::slice::from_ref(y), xs, None).unwrap();
    let all = g.operations();
    let made = &all[before..];
    let sync = made.iter().find(|o| o.op_type() == "ControlTrigger" && o.name().ends_with("f_sync")).expect("f_sync");
    let guarded_pops =
        made.iter().filter(|o| o.op_type() == "StackPopV2" && all[o.node().inputs[0].0].op_type() == "Switch").count();
    assert!(guarded_pops >= 3, "{guarded_pops} pops through a Switch");
    let pushes_before_sync = sync.node().control_inputs.iter().filter(|&&c| all[c].op_type() == "StackPushV2").count();
    assert_eq!(pushes_before_sync, guarded_pops, "every push in a branch comes before f_sync");
    // the guards are the predicates popped (dead when their own branch did not run), never
    // a loop invariant's copy (the inner cond's p enters the loop: its copy would be live
    // on odd steps too, and pop from an empty stack)
    let pred_of = |o: &tensorgraph::Operation| all[all[o.node().inputs[0].0].node().inputs[1].0].clone();
    for pop in made.iter().filter(|o| o.op_type() == "StackPopV2" && all[o.node().inputs[0].0].op_type() == "Switch") {
        assert_eq!(pred_of(pop).op_type(), "StackPopV2", "{} guarded by {}", pop.name(), pred_of(pop).name());
    }
    // an untaken side's zero gradient is guarded the same way, also for a Switch of a loop
    // invariant (wc into the false branch, output 1 unused): an unguarded zero would be a
    // second live input of the cond_grad Merge
    let guarded_zeros = |made: &[tensorgraph::Operation], all: &[tensorgraph::Operation], data: &str| {
        made.iter()
            .filter(|o| o.op_type() == "Merge" && o.name().ends_with("Switch_grad/cond_grad"))
            .flat_map(|m| m.node().inputs.iter().map(|&(s, _)| all[s].clone()).collect::<Vec<_>>())
            .filter(|z| {
                let inner = |o: &tensorgraph::Operation| all[o.node().inputs[0].0].clone();
                match data {
                    // zeros of a known shape through a Switch on a popped predicate
                    "Const" => {
                        z.op_type() == "Switch"
                            && inner(z).op_type() == "Const"
                            && all[z.node().inputs[1].0].op_type() == "StackPopV2"
                    }
                    // zeros of a shape pushed in the branch, popped through a Switch
                    _ => {
                        z.op_type() == "Fill"
                            && inner(z).op_type() == "StackPopV2"
                            && inner(&inner(z)).op_type() == "Switch"
                    }
                }
            })
            .map(|z| z.name())
            .collect::<Vec<_>>()
    };
    let z = guarded_zeros(made, &all, "Const");
    assert!(z.iter().any(|n| n.starts_with("gradients/condloop/cond/add/Switch_grad/")), "{z:?}");
    // TensorFlow's GraphDef leaves the loop values' shapes unknown: their zeros are filled
    let text = std::fs::read_to_string(data_dir().join("loops.pbtxt")).unwrap();
    let g = Graph::new();
    import_graph_def(&g, &graph_def_from_text(&text).unwrap(), &ImportGraphDefOptions::new().prefix("")).unwrap();
    let xs = [g.tensor_by_name("x:0").unwrap(), g.tensor_by_name("wc:0").unwrap()];
    let before = g.num_ops();
    gradients(&[g.tensor_by_name("condloop_y:0").unwrap()], &xs, None).unwrap();
    let all = g.operations();
    let z = guarded_zeros(&all[before..], &all, "Fill");
    assert!(z.iter().any(|n| n.starts_with("gradients/condloop/cond/cond/mul_1/Switch_grad/")), "{z:?}");
}

#[test]
fn gradients_of_loops_tensorflow_wrote_equal_tensorflows() {
    let e = expected();
    let text = std::fs::read_to_string(data_dir().join("loops.pbtxt")).unwrap();
    let imported = || {
        let g = Graph::new();
        import_graph_def(&g, &graph_def_from_text(&text).unwrap(), &ImportGraphDefOptions::new().prefix("")).unwrap();
        g
    };
    // TensorFlow's GraphDef leaves the loops' output shapes unknown: the Sum gradients
    // reshape through Shape and DynamicStitch
    for name in ["sum", "capped", "tanh", "gru", "nest2", "nested", "condloop", "incond"] {
        check_case(&imported(), name);
    }
    for p in [true, false] {
        check_case_p(&imported(), "condloop", Some(p));
    }
    // seeded at the loop outputs with d(y)/d(output): the seeds pass through the
    // gradients' `grad_ys_<i>` Identities, so the TensorArray gradients all have source
    // `gradients` (named here `gradients_seed/...`, the GRU's `hs` gradient would
    // otherwise go to another gradient TensorArray than its loop's)
    for (name, outs) in [("tanh", vec!["tanh/Exit_1:0"]), ("gru", vec!["hs:0", "gru/Exit_1:0"])] {
        let g = imported();
        let case = &e["grads"][name];
        let ys: Vec<Output> = outs.iter().map(|o| g.tensor_by_name(o).unwrap()).collect();
        let vals = run(&g, &ys, None).unwrap();
        // the seeds' names start with `gradients`, as a TensorArray gradient needs
        let s = g.scope().name_scope("gradients_seed");
        let seeds: Vec<Output> = vals
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let f: Vec<f64> = v.to_f64_vec().unwrap().iter().map(|x| if i == 0 { 2.0 * x } else { 1.0 }).collect();
                ops::constant(&s, Tensor::from_f64(DType::Float, v.shape(), &f).unwrap()).unwrap()
            })
            .collect();
        let xs: Vec<Output> =
            case["xs"].as_array().unwrap().iter().map(|x| g.tensor_by_name(x.as_str().unwrap()).unwrap()).collect();
        let grads: Vec<Output> =
            gradients(&ys, &xs, Some(&seeds)).unwrap().into_iter().map(|g| g.expect("a gradient")).collect();
        let got = run(&g, &grads, None).unwrap();
        for (i, (t, want)) in got.iter().zip(case["values"].as_array().unwrap()).enumerate() {
            assert_tf(&format!("imported {name}: gradient {i}"), t, want, 1e-4);
        }
    }
}

#[test]
fn the_gradient_loop_has_tensorflows_structure() {
    let e = expected();
    let (g, _) = build();
    let y = g.tensor_by_name("tanh_y:0").unwrap();
    let xs = [g.tensor_by_name("W:0").unwrap(), g.tensor_by_name("x0:0").unwrap()];
    let before = g.num_ops();
    gradients(&[y], &xs, None).unwrap();
    let made: std::collections::BTreeSet<(String, String)> =
        g.operations()[before..].iter().map(|o| (o.name(), o.op_type())).collect();
    // the loop machinery TensorFlow names (the seed and Sum gradient differ in form here)
    for pair in e["tanh_grad_nodes"].as_array().unwrap() {
        let (name, op) = (pair[0].as_str().unwrap(), pair[1].as_str().unwrap());
        if name.starts_with("gradients/tanh") && !name.starts_with("gradients/tanh_y_grad") || name.contains("count") {
            assert!(made.contains(&(name.to_string(), op.to_string())), "{name} ({op}) missing; made {made:?}");
        }
    }
}

#[test]
fn tanh_loop_gradient_matches_finite_differences() {
    let w = common::values(9, 3, -0.8, 0.8);
    let x0 = common::values(3, 4, -1.0, 1.0);
    common::check_gradients(&[(vec![3, 3], w), (vec![3, 1], x0)], 1e-6, |s, v| {
        let i0 = ops::constant(s, Tensor::scalar(0i32)).unwrap();
        let n = ops::constant(s, Tensor::scalar(5i32)).unwrap();
        let (w, x0) = (v[0].clone(), v[1].clone());
        let r = ops::while_loop(
            s,
            |s, u| ops::less(s, &u[0], &n),
            |s, u| {
                let one = ops::constant(s, Tensor::scalar(1i32))?;
                Ok(vec![ops::add(s, &u[0], &one)?, ops::tanh(s, &ops::matmul(s, &w, &u[1])?)?])
            },
            &[i0, x0],
            &WhileOptions::default(),
        )
        .unwrap();
        ops::mul(s, &r[1], &r[1]).unwrap()
    });
}

#[test]
fn tensor_array_rnn_gradient_matches_finite_differences() {
    // h = tanh(x_t Wx + h Wh) over 4 steps read from a TensorArray, outputs written to one
    let xs = common::values(4 * 2 * 3, 5, -1.0, 1.0);
    let wx = common::values(3 * 2, 6, -0.7, 0.7);
    let wh = common::values(2 * 2, 7, -0.7, 0.7);
    common::check_gradients(&[(vec![4, 2, 3], xs), (vec![3, 2], wx), (vec![2, 2], wh)], 1e-6, |s, v| {
        let size = ops::constant(s, Tensor::scalar(4i32)).unwrap();
        let idx = ops::constant(s, Tensor::new(&[4], vec![0i32, 1, 2, 3]).unwrap()).unwrap();
        let o = TensorArrayOptions::default();
        let (xin, f) = ops::tensor_array_v3(s, &size, DType::Double, &o).unwrap();
        let f = ops::tensor_array_scatter_v3(s, &xin, &idx, &v[0], &f).unwrap();
        let (hout, hf) = ops::tensor_array_v3(s, &size, DType::Double, &o).unwrap();
        let i0 = ops::constant(s, Tensor::scalar(0i32)).unwrap();
        let h0 = ops::constant(s, Tensor::zeros(DType::Double, &[2, 2])).unwrap();
        let (wx, wh) = (v[1].clone(), v[2].clone());
        let r = ops::while_loop(
            s,
            |s, u| ops::less(s, &u[0], &size),
            |s, u| {
                let x = ops::tensor_array_read_v3(s, &xin, &u[0], &f, DType::Double)?;
                let x = while_loop_common::reshape_c(s, &x, &[2, 3])?;
                let h = ops::tanh(s, &ops::add(s, &ops::matmul(s, &x, &wx)?, &ops::matmul(s, &u[1], &wh)?)?)?;
                let one = ops::constant(s, Tensor::scalar(1i32))?;
                Ok(vec![ops::add(s, &u[0], &one)?, h.clone(), ops::tensor_array_write_v3(s, &hout, &u[0], &h, &u[2])?])
            },
            &[i0, h0, hf],
            &WhileOptions::default(),
        )
        .unwrap();
        let hs = ops::tensor_array_gather_v3(s, &hout, &idx, &r[2], DType::Double, &Shape::known(&[2, 2])).unwrap();
        ops::mul(s, &hs, &hs).unwrap()
    });
}

#[test]
fn nested_loop_gradient_matches_finite_differences() {
    // outer i < 3: s = inner(s) * x, inner j < i + 1 (a trip count per outer iteration):
    // t = tanh(t * w + j)
    let w = common::values(2, 8, -0.9, 0.9);
    let x = common::values(2, 9, 0.5, 1.2);
    let s0 = common::values(2, 10, -1.0, 1.0);
    common::check_gradients(&[(vec![2], w), (vec![2], x), (vec![2], s0)], 1e-6, |s, v| {
        let i0 = ops::constant(s, Tensor::scalar(0i32)).unwrap();
        let three = ops::constant(s, Tensor::scalar(3i32)).unwrap();
        let (w, x) = (v[0].clone(), v[1].clone());
        let r = ops::while_loop(
            s,
            |s, u| ops::less(s, &u[0], &three),
            |s, u| {
                let one = ops::constant(s, Tensor::scalar(1i32))?;
                let i1 = ops::add(s, &u[0], &one)?;
                let j0 = ops::constant(s, Tensor::scalar(0i32))?;
                let inner = ops::while_loop(
                    s,
                    |s, t| ops::less(s, &t[0], &i1),
                    |s, t| {
                        let one = ops::constant(s, Tensor::scalar(1i32))?;
                        let j = ops::cast(s, &t[0], DType::Double)?;
                        Ok(vec![ops::add(s, &t[0], &one)?, ops::tanh(s, &ops::add(s, &ops::mul(s, &t[1], &w)?, &j)?)?])
                    },
                    &[j0, u[1].clone()],
                    &WhileOptions::default(),
                )?;
                Ok(vec![i1, ops::mul(s, &inner[1], &x)?])
            },
            &[i0, v[2].clone()],
            &WhileOptions::default(),
        )
        .unwrap();
        ops::mul(s, &r[1], &r[1]).unwrap()
    });
}

#[test]
fn cond_in_loop_gradient_matches_finite_differences() {
    // v <- cond(i even, cond(p, tanh(v w), v w), v v + w) over 5 steps, p both ways
    let w = common::values(2, 14, 0.3, 0.9);
    let x0 = common::values(2, 15, -0.8, 0.8);
    for p in [true, false] {
        common::check_gradients(&[(vec![2], w.clone()), (vec![2], x0.clone())], 1e-6, |s, v| {
            let i0 = ops::constant(s, Tensor::scalar(0i32)).unwrap();
            let n = ops::constant(s, Tensor::scalar(5i32)).unwrap();
            let two = ops::constant(s, Tensor::scalar(2i32)).unwrap();
            let zero = ops::constant(s, Tensor::scalar(0i32)).unwrap();
            let pred = ops::constant(s, Tensor::scalar(p)).unwrap();
            let w = v[0].clone();
            let r = ops::while_loop(
                s,
                |s, u| ops::less(s, &u[0], &n),
                |s, u| {
                    let even = ops::equal(s, &ops::floor_mod(s, &u[0], &two)?, &zero)?;
                    let x = &u[1];
                    let t = ops::cond(
                        s,
                        &even,
                        |s| {
                            ops::cond(
                                s,
                                &pred,
                                |s| Ok(vec![ops::tanh(s, &ops::mul(s, x, &w)?)?]),
                                |s| Ok(vec![ops::mul(s, x, &w)?]),
                            )
                        },
                        |s| Ok(vec![ops::add(s, &ops::mul(s, x, x)?, &w)?]),
                    )?;
                    let one = ops::constant(s, Tensor::scalar(1i32))?;
                    Ok(vec![ops::add(s, &u[0], &one)?, t[0].clone()])
                },
                &[i0, v[1].clone()],
                &WhileOptions::default(),
            )
            .unwrap();
            ops::mul(s, &r[1], &r[1]).unwrap()
        });
    }
}

#[test]
fn doubly_nested_loop_gradient_matches_finite_differences() {
    // three loops deep, each level reading w from outside all of them
    let w = common::values(3, 12, 0.3, 0.9);
    let x0 = common::values(3, 13, -1.0, 1.0);
    common::check_gradients(&[(vec![3], w), (vec![3], x0)], 1e-6, |s, v| {
        let w = v[0].clone();
        let level = |s: &tensorgraph::Scope,
                     n: i32,
                     x: &Output,
                     f: &dyn Fn(&tensorgraph::Scope, &Output) -> tensorgraph::Result<Output>| {
            let i0 = ops::constant(s, Tensor::scalar(0i32))?;
            let n = ops::constant(s, Tensor::scalar(n))?;
            let r = ops::while_loop(
                s,
                |s, u| ops::less(s, &u[0], &n),
                |s, u| {
                    let one = ops::constant(s, Tensor::scalar(1i32))?;
                    Ok(vec![ops::add(s, &u[0], &one)?, f(s, &u[1])?])
                },
                &[i0, x.clone()],
                &WhileOptions::default(),
            )?;
            Ok(r[1].clone())
        };
        let innermost = |s: &tensorgraph::Scope, x: &Output| ops::sigmoid(s, &ops::mul(s, x, &w)?);
        let middle = |s: &tensorgraph::Scope, x: &Output| level(s, 2, x, &innermost);
        let outer = |s: &tensorgraph::Scope, x: &Output| ops::add(s, &level(s, 2, x, &middle)?, &w);
        level(s, 2, &v[1], &outer).unwrap()
    });
}

/// For the interop suite (interop/check_while_loop.py): with `TG_WHILE_OUT=DIR`, writes
/// the programs built here with their gradients as DIR/loops.pb and the gradients' tensor
/// names per case as DIR/grads.json; without it, checks that the export holds them.
#[test]
fn write_for_interop() {
    let e = expected();
    let (g, cases) = build();
    let mut names = serde_json::Map::new();
    for (name, y, xs) in &cases {
        let grads = gradients(std::slice::from_ref(y), xs, None).unwrap();
        let grads: Vec<serde_json::Value> = grads.iter().map(|g| g.as_ref().unwrap().name().into()).collect();
        assert_eq!(grads.len(), e["grads"][name]["values"].as_array().unwrap().len());
        names.insert(name.to_string(), grads.into());
    }
    let gd = g.to_graph_def();
    for n in names.values().flat_map(|v| v.as_array().unwrap().clone()) {
        let op = n.as_str().unwrap().split(':').next().unwrap().to_string();
        assert!(gd.node.iter().any(|d| d.name == op), "{op} not exported");
    }
    if let Ok(dir) = std::env::var("TG_WHILE_OUT") {
        let dir = std::path::Path::new(&dir);
        tensorgraph::io::graph_def::write_graph_def(&gd, dir.join("loops.pb")).unwrap();
        std::fs::write(dir.join("grads.json"), serde_json::to_string_pretty(&names).unwrap()).unwrap();
    }
}
