//! "Did you mean ...?" (issue 12 item 12) wherever a name is not found: a checkpoint key
//! (`CheckpointReader::read`, V2 and V1), an `init_from_checkpoint` assignment map (a
//! checkpoint name or scope, a graph variable or scope), an `input_map` key or a return
//! element of `import_graph_def`, a misspelt checkpoint prefix, and the graph's own names.
//! Every place takes the names from one rule (`tensorgraph::error::suggest`).

use std::path::{Path, PathBuf};
use tensorgraph::error::suggest::{closest_names, did_you_mean};
use tensorgraph::format::checkpoint::CheckpointReader;
use tensorgraph::init::Initializer;
use tensorgraph::io::graph_def::{import_graph_def, ImportGraphDefOptions};
use tensorgraph::train::{init_from_checkpoint, Saver};
use tensorgraph::{ops, Code, DType, Graph, Reuse, Session, Tensor};

/// A graph with `dense/kernel` [2,3] and `dense/bias` [3], and its checkpoint `dir/model.ckpt`.
fn dense_graph() -> Graph {
    let g = Graph::new();
    g.scope()
        .variable_scope("dense", Reuse::No, |s| {
            s.get_variable("kernel", [2, 3], DType::Float, Initializer::Zeros)?;
            s.get_variable("bias", [3], DType::Float, Initializer::Zeros)
        })
        .unwrap();
    g
}

fn saved_checkpoint(dir: &Path) -> PathBuf {
    let g = dense_graph();
    let init = g.scope().global_variables_initializer().unwrap();
    let sess = Session::new(&g).unwrap();
    sess.run_targets(&[&init]).unwrap();
    Saver::new(&g).unwrap().save(&sess, dir.join("model.ckpt")).unwrap()
}

#[test]
fn the_rule_prefers_the_name_under_a_prefix_then_the_nearest_by_edit_distance() {
    let names = ["dense/kernel", "dense/bias", "import/probs", "prob_a", "probs"];
    assert_eq!(closest_names("probs", names), ["import/probs"]);
    assert_eq!(closest_names("dense/kernal", names), ["dense/kernel"]);
    assert_eq!(closest_names("prob", names), ["probs"]);
    assert_eq!(closest_names("zzz", names), Vec::<&str>::new());
    assert_eq!(did_you_mean(&["a", "b"], ":0"), " Did you mean one of 'a:0', 'b:0'?");
    assert_eq!(did_you_mean(&[], ":0"), "");
}

#[test]
fn a_missing_checkpoint_key_names_the_closest_keys() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = saved_checkpoint(dir.path());
    let reader = CheckpointReader::open(&prefix).unwrap();
    let e = reader.read("dense/kernal").unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(
        e.message,
        format!("Key dense/kernal not found in checkpoint {}. Did you mean 'dense/kernel'?", prefix.display())
    );
    // nothing close: TensorFlow's message alone
    let e = reader.read("zzz").unwrap_err();
    assert_eq!(e.message, format!("Key zzz not found in checkpoint {}", prefix.display()));

    // a V1 checkpoint (tests/data/trainapi/v1/model.ckpt holds w, part, count, label)
    let v1 = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/trainapi/v1/model.ckpt");
    let e = CheckpointReader::open(&v1).unwrap().read("cont").unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(e.message, format!("Key cont not found in checkpoint {}. Did you mean 'count'?", v1.display()));
}

#[test]
fn a_misspelt_name_or_scope_in_an_assignment_map_names_the_closest() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = saved_checkpoint(dir.path());
    let p = prefix.display();
    let failed = |map: &[(&str, &str)]| {
        let e = init_from_checkpoint(&dense_graph(), &prefix, map.iter().copied()).unwrap_err();
        assert_eq!(e.code, Code::NotFound, "{e}");
        e.message
    };
    let head = format!("init_from_checkpoint from {p} failed (1 problem(s); nothing was changed):\n  ");
    // a misspelt checkpoint name
    assert_eq!(
        failed(&[("dense/kernal", "dense/kernel")]),
        format!(
            "{head}Tensor dense/kernal (for variable dense/kernel) is not found in checkpoint {p}. Did you mean 'dense/kernel'?"
        )
    );
    // a misspelt graph name
    assert_eq!(
        failed(&[("dense/kernel", "dense/kernal")]),
        format!(
            "{head}variable dense/kernal (assignment map entry \"dense/kernel\": \"dense/kernal\") is not in the graph; \
             to map a whole scope write both names with a trailing '/'. Did you mean 'dense/kernel'?"
        )
    );
    // a misspelt checkpoint scope: one problem for the entry, not one per variable
    assert_eq!(
        failed(&[("dens/", "dense/")]),
        format!(
            "{head}no tensor of checkpoint {p} is under scope \"dens/\" (assignment map entry \"dens/\": \"dense/\"). \
             Did you mean 'dense/'?"
        )
    );
    // a misspelt graph scope
    assert_eq!(
        failed(&[("dense/", "dnse/")]),
        format!(
            "{head}no variable of the graph is under scope \"dnse/\" (assignment map entry \"dense/\": \"dnse/\"). \
             Did you mean 'dense/'?"
        )
    );
}

#[test]
fn a_device_given_as_a_checkpoint_is_named_as_not_a_regular_file() {
    let e = CheckpointReader::open("/dev/zero").err().unwrap();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(
        e.message,
        "checkpoint /dev/zero not found: /dev/zero is not a regular file (a device, pipe or socket), and \
         /dev/zero.index does not exist (a V2 checkpoint prefix names the files PREFIX.index and PREFIX.data-*)"
    );
}

#[test]
fn a_misspelt_checkpoint_prefix_names_the_checkpoint_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = saved_checkpoint(dir.path());
    let typo = dir.path().join("model.ckt");
    let e = CheckpointReader::open(&typo).unwrap_err();
    assert_eq!(e.code, Code::NotFound);
    assert_eq!(
        e.message,
        format!(
            "checkpoint {t} not found: {t}.index does not exist (a V2 checkpoint prefix names the files PREFIX.index \
             and PREFIX.data-*). Did you mean '{}'?",
            prefix.display(),
            t = typo.display()
        )
    );
}

#[test]
fn a_misspelt_input_map_key_or_return_element_names_the_closest_node() {
    let src = Graph::new();
    let batch = ops::placeholder(&src.scope().named("batch"), DType::Float, [None]).unwrap();
    let two = ops::constant(&src.scope().named("two"), Tensor::new(&[], vec![2f32]).unwrap()).unwrap();
    ops::mul(&src.scope().named("output"), &batch, &two).unwrap();
    let gd = src.to_graph_def();

    let g = Graph::new();
    let host = ops::constant(&g.scope().named("host"), Tensor::new(&[2], vec![1f32, 2.]).unwrap()).unwrap();
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().input_map("bacth:0", &host)).unwrap_err();
    assert_eq!(e.code, Code::InvalidArgument);
    assert_eq!(
        e.message,
        "Attempted to map inputs that were not found in graph_def: [bacth:0]. Did you mean 'batch:0'?"
    );
    // several keys: each with its own suggestions; a key with none is listed only
    let opts =
        ImportGraphDefOptions::new().input_map("bacth:0", &host).input_map("zzz:0", &host).input_map("tow:0", &host);
    let e = import_graph_def(&g, &gd, &opts).unwrap_err();
    assert_eq!(
        e.message,
        "Attempted to map inputs that were not found in graph_def: [bacth:0, zzz:0, tow:0] bacth:0: Did you mean \
         'batch:0'? tow:0: Did you mean 'two:0'?"
    );
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().return_elements(&["outptu:0"])).unwrap_err();
    assert_eq!(e.message, "Requested return tensor 'outptu:0' not found in graph_def. Did you mean 'output:0'?");
    let e = import_graph_def(&g, &gd, &ImportGraphDefOptions::new().return_elements(&["zzz"])).unwrap_err();
    assert_eq!(e.message, "Requested return node 'zzz' not found in graph_def");
    // the graph's own names, after an import under 'import/'
    import_graph_def(&g, &gd, &ImportGraphDefOptions::new()).unwrap();
    let e = g.tensor_by_name("output:0").unwrap_err();
    assert_eq!(
        e.message,
        "The name 'output:0' refers to a Tensor which does not exist. The operation, 'output', does not exist in the \
         graph. Did you mean 'import/output:0'? (import_graph_def puts a GraphDef's names under the prefix 'import/' \
         unless ImportGraphDefOptions gives another)"
    );
}
