//! The pool of large float32 buffers (`tensor/pool.rs`): a run reuses the buffers of the
//! tensors its kernels are done with, never one that a caller still holds, and a dropped
//! session leaves nothing pooled. One test function: the pool is process-wide.

use tensorgraph::tensor::{pooled_bytes, MIN_POOLED_BYTES};
use tensorgraph::{ops, DType, Graph, Session, Tensor};

#[test]
fn runs_reuse_large_buffers_but_never_one_a_caller_holds() {
    let n = 8 << 20; // 32 MiB of float32, the least that is pooled
    assert!(n * 4 >= MIN_POOLED_BYTES);
    let g = Graph::new();
    let root = g.scope();
    let x = ops::placeholder(&root.named("x"), DType::Float, [Some(n)]).unwrap();
    let y = ops::square(&root.named("y"), &x).unwrap();
    // `y` is fetched and `z` read twice, so neither op below can write in place: `z`'s
    // buffer is the one freed (and pooled) when `w` is done
    let z = ops::add(&root.named("z"), &y, &y).unwrap();
    let w = ops::mul(&root.named("w"), &z, &z).unwrap();
    let sess = Session::new(&g).unwrap();
    let feed = |v: f32| Tensor::new(&[n], (0..n).map(|i| v + i as f32).collect::<Vec<f32>>()).unwrap();

    let x1 = feed(1.0);
    let out1 = sess.run(&[(&x, x1.clone())], &[&w, &y], &[]).unwrap();
    let (w1, y1) = (out1[0].clone(), out1[1].clone());
    assert!(pooled_bytes() >= n * 4, "z's buffer is pooled after w read it: {}", pooled_bytes());

    // later runs reuse pooled buffers (holding the last run's values): each result is the
    // new feed's, and the tensors fetched before are untouched
    for v in [2.0f32, -3.0, 0.5] {
        let xv = feed(v);
        let out = sess.run(&[(&x, xv)], &[&w, &y], &[]).unwrap();
        let (w, y) = (out[0].as_slice::<f32>().unwrap(), out[1].as_slice::<f32>().unwrap());
        for i in [0usize, 1, n / 2, n - 1] {
            let (xi, zi) = (v + i as f32, 2.0 * (v + i as f32) * (v + i as f32));
            assert_eq!(y[i], xi * xi, "y[{i}] for feed {v}");
            assert_eq!(w[i], zi * zi, "w[{i}] for feed {v}");
        }
    }
    let (w1, y1) = (w1.as_slice::<f32>().unwrap(), y1.as_slice::<f32>().unwrap());
    for i in [0usize, 7, n - 1] {
        let (xi, zi) = (1.0 + i as f32, 2.0 * (1.0 + i as f32) * (1.0 + i as f32));
        assert_eq!(y1[i], xi * xi);
        assert_eq!(w1[i], zi * zi);
    }
    // the fed tensor the caller holds is never recycled either
    assert_eq!(x1.as_slice::<f32>().unwrap()[n - 1], n as f32);

    drop(sess);
    assert_eq!(pooled_bytes(), 0, "a dropped session frees the pooled buffers");
}
