//! [`SavedModelBundle`]: `tf.compat.v1.saved_model.loader.load` (`SavedModelLoader.load`):
//! import the meta graph of a tag set, restore its variables, feed the asset paths and run
//! the init op; then run signatures by key.

use super::read::{meta_graph_for_tags, read_saved_model, saved_model_dir, tags_of, variables_prefix};
use super::signature::Signature;
use super::{ASSETS_KEY, INIT_OP_SIGNATURE_KEY, LEGACY_INIT_OP_KEY, MAIN_OP_KEY};
use crate::error::{Error, Result};
use crate::format::checkpoint::index_path;
use crate::format::proto::{AssetFileDef, CollectionKind, MetaGraphDef, RunMetadata, RunOptions, TensorInfoEncoding};
use crate::graph::{Graph, Operation, Output};
use crate::io::meta_graph::ImportMetaGraphOptions;
use crate::io::references::all_or_every_error;
use crate::session::{Session, SessionOptions};
use crate::tensor::Tensor;
use prost::Message;
use std::path::{Path, PathBuf};

/// A loaded SavedModel meta graph: its graph, a session holding the restored variables,
/// and its signatures (`tf.compat.v1.saved_model.loader.load` in a fresh `tf.Session`).
pub struct SavedModelBundle {
    export_dir: PathBuf,
    graph: Graph,
    session: Session,
    meta_graph_def: MetaGraphDef,
    left_out: Vec<String>,
}

impl std::fmt::Debug for SavedModelBundle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SavedModelBundle")
            .field("export_dir", &self.export_dir)
            .field("tags", &self.tags())
            .field("signatures", &self.meta_graph_def.signature_def.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl SavedModelBundle {
    /// Loads the meta graph of SavedModel directory `export_dir` whose tag set equals `tags`
    /// (`&["serve"]`), as `tf.compat.v1.saved_model.loader.load(sess, tags, export_dir)`:
    /// 1. reads `saved_model.pb` (or `saved_model.pbtxt`) and picks the meta graph;
    /// 2. imports it into a fresh graph (`import_meta_graph`: graph, collections, saver),
    ///    leaving out what depends on op types tensorgraph lacks where nothing the model
    ///    uses needs it ([`left_out`](Self::left_out));
    /// 3. restores its variables from the checkpoint `variables/variables` (through the
    ///    saver its `SaverDef` describes);
    /// 4. runs its init op, the output of signature `__saved_model_init_op`, else the op of
    ///    collection `saved_model_main_op`, else of `legacy_init_op`, feeding each asset
    ///    tensor (`asset_file_def`, or collection `saved_model_assets`) with the path of its
    ///    file under `assets/`.
    ///
    /// Errors: as [`read_saved_model`](super::read_saved_model) for a path that is not a
    /// SavedModel; `NotFound` naming the available tag sets when none equals `tags`;
    /// `NotFound` listing every signature input or output that names no tensor of the
    /// imported graph (all of them, in one error); `NotFound` when the meta graph has
    /// variables but the directory no
    /// `variables/variables.index`; the import's errors (an unsupported op type, ...) and
    /// the restore's (a variable missing from the checkpoint, ...) with the directory named;
    /// `InvalidArgument` when a collection holds more than one init op; the init op's run
    /// errors.
    pub fn load(export_dir: impl AsRef<Path>, tags: &[&str]) -> Result<SavedModelBundle> {
        SavedModelBundle::load_with_options(export_dir, tags, &SessionOptions::default())
    }

    /// [`load`](Self::load) into a session made with `options`
    /// (`tf.compat.v1.Session(config=...)`, see [`Session::with_options`]).
    /// Errors: as [`load`](Self::load), and the session's for bad options.
    pub fn load_with_options(
        export_dir: impl AsRef<Path>,
        tags: &[&str],
        options: &SessionOptions,
    ) -> Result<SavedModelBundle> {
        let dir = saved_model_dir(export_dir.as_ref())?;
        let shown = dir.display().to_string();
        let model = read_saved_model(&dir)?;
        let meta = meta_graph_for_tags(&model, tags, &dir)?.clone();
        let graph = Graph::new();
        let (to_import, left_out) = super::prune::prune_unrunnable(&meta);
        let saver = graph
            .import_meta_graph_def(
                &to_import,
                &ImportMetaGraphOptions::default(),
                &format!("loaded from SavedModel {shown}"),
            )
            .map_err(|e| e.context(format!("importing the meta graph of SavedModel {shown}")))?;
        check_signature_tensors(&meta, &graph).map_err(|e| e.context(format!("SavedModel {shown}")))?;
        let session = Session::with_options(&graph, options)?;
        match saver {
            // a TF2 SavedModel (tf.saved_model.save) lists no variables in collections: its
            // saver runs the SaverDef's restore op (a call of the library's _traced_restore)
            // with the prefix fed, as TensorFlow's loader does; without variables/ there is
            // nothing to restore
            Some(saver) if saver.runs_saver_def_ops() => {
                let prefix = variables_prefix(&dir);
                if index_path(&prefix).is_file() {
                    saver
                        .restore(&session, &prefix)
                        .map_err(|e| e.context(format!("restoring the variables of SavedModel {shown}")))?;
                }
            }
            Some(saver) => {
                let prefix = variables_prefix(&dir);
                if !index_path(&prefix).is_file() {
                    let names: Vec<&String> = saver.variables().keys().take(5).collect();
                    return Err(Error::not_found(format!(
                        "SavedModel {shown} has {} variable(s) ({}{}) but no variables/variables.index; copy the whole SavedModel directory, with its variables/ directory",
                        saver.variables().len(),
                        names.iter().map(|n| n.as_str()).collect::<Vec<_>>().join(", "),
                        if saver.variables().len() > names.len() { ", ..." } else { "" },
                    )));
                }
                saver
                    .restore(&session, &prefix)
                    .map_err(|e| e.context(format!("restoring the variables of SavedModel {shown}")))?;
            }
            None => {}
        }
        let assets = asset_feeds(&dir, &meta, &graph)?;
        if let Some(op) = init_op(&meta, &graph)? {
            let feeds: Vec<(&Output, Tensor)> = assets.iter().map(|(o, t)| (o, t.clone())).collect();
            session
                .run(&feeds, &[], &[&op])
                .map_err(|e| e.context(format!("running the init op {} of SavedModel {shown}", op.name())))?;
        }
        Ok(SavedModelBundle { export_dir: dir, graph, session, meta_graph_def: meta, left_out })
    }

    /// The SavedModel directory.
    pub fn export_dir(&self) -> &Path {
        &self.export_dir
    }

    /// The graph the meta graph was imported into.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The session holding the restored variables; run any tensor of [`graph`](Self::graph).
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// The loaded `MetaGraphDef` (what TensorFlow's `loader.load` returns).
    pub fn meta_graph_def(&self) -> &MetaGraphDef {
        &self.meta_graph_def
    }

    /// The nodes not imported: those of op types tensorgraph does not register, and the
    /// nodes depending on them, when nothing a signature, collection, asset or the saver's
    /// restore op uses depends on them — in a SavedModel from TensorFlow 1.x's builder, the
    /// save half of its sharded saver (`save/StaticRegexFullMatch`, `save/ShardedFilename`,
    /// `save/MergeV2Checkpoints`, ...), which loading never runs. Empty when every node
    /// was imported.
    pub fn left_out(&self) -> &[String] {
        &self.left_out
    }

    /// The meta graph's tags.
    pub fn tags(&self) -> Vec<String> {
        tags_of(&self.meta_graph_def)
    }

    /// Every signature, sorted by key (including `__saved_model_init_op` where present, as
    /// `saved_model_cli show` lists it).
    pub fn signatures(&self) -> Vec<Signature> {
        self.meta_graph_def.signature_def.iter().map(|(k, d)| Signature::from_def(k, d)).collect()
    }

    /// The signature `key`. Errors: `NotFound` naming the available keys.
    pub fn signature(&self, key: &str) -> Result<Signature> {
        match self.meta_graph_def.signature_def.get(key) {
            Some(d) => Ok(Signature::from_def(key, d)),
            None => Err(Error::not_found(format!(
                "SavedModel {} has no signature '{key}'; its signatures: {}",
                self.export_dir.display(),
                key_list(self.meta_graph_def.signature_def.keys())
            ))),
        }
    }

    /// Runs signature `key`: feeds each `(input key, value)`, and fetches the outputs whose
    /// keys `outputs` lists (every output, sorted by key, when it is empty). Inputs left out
    /// take the signature's default (`SignatureDef.defaults`) where it has one. Returns
    /// `(output key, value)` pairs in the order asked. Feeds convert as
    /// [`Session::run`]'s do.
    ///
    /// Errors: `NotFound` for an unknown signature (naming the available ones);
    /// `InvalidArgument` for an input or output key the signature lacks (naming its keys),
    /// an input given twice, or an input left out without a default; `Unimplemented` for a
    /// sparse or composite input or output; [`Session::run`]'s errors (wrong shape or
    /// dtype, naming the tensor).
    pub fn run_signature(
        &self,
        key: &str,
        inputs: &[(&str, Tensor)],
        outputs: &[&str],
    ) -> Result<Vec<(String, Tensor)>> {
        Ok(self.run_signature_with_options(key, inputs, outputs, &RunOptions::default())?.0)
    }

    /// [`SavedModelBundle::run_signature`] with TensorFlow's `RunOptions`: with a
    /// `trace_level` the returned `RunMetadata` has the run's step statistics (see
    /// [`Session::run_with_options`]). Errors: as `run_signature`.
    pub fn run_signature_with_options(
        &self,
        key: &str,
        inputs: &[(&str, Tensor)],
        outputs: &[&str],
        options: &RunOptions,
    ) -> Result<(Vec<(String, Tensor)>, RunMetadata)> {
        let sig = self.signature(key)?;
        let def = &self.meta_graph_def.signature_def[key];
        let mut feeds: Vec<(Output, Tensor)> = Vec::with_capacity(sig.inputs.len());
        for (k, value) in inputs {
            let Some(spec) = sig.input(k) else {
                return Err(Error::invalid_argument(format!(
                    "signature '{key}' has no input '{k}'; its inputs: {}",
                    spec_list(&sig.inputs)
                )));
            };
            if inputs.iter().filter(|(o, _)| o == k).count() > 1 {
                return Err(Error::invalid_argument(format!("input '{k}' of signature '{key}' is given twice")));
            }
            feeds.push((self.tensor_of(key, spec)?, value.clone()));
        }
        for spec in &sig.inputs {
            if inputs.iter().any(|(k, _)| *k == spec.key) {
                continue;
            }
            match def.defaults.get(&spec.key) {
                Some(d) => feeds.push((self.tensor_of(key, spec)?, d.to_tensor()?)),
                None => {
                    return Err(Error::invalid_argument(format!(
                        "signature '{key}' needs input '{}' ({}), which was not given; give every input: {}",
                        spec.key,
                        spec.name,
                        spec_list(&sig.inputs)
                    )))
                }
            }
        }
        let wanted: Vec<&str> =
            if outputs.is_empty() { sig.outputs.iter().map(|s| s.key.as_str()).collect() } else { outputs.to_vec() };
        let mut fetches = Vec::with_capacity(wanted.len());
        for k in &wanted {
            let Some(spec) = sig.output(k) else {
                return Err(Error::invalid_argument(format!(
                    "signature '{key}' has no output '{k}'; its outputs: {}",
                    spec_list(&sig.outputs)
                )));
            };
            fetches.push(self.tensor_of(key, spec)?);
        }
        let feed_refs: Vec<(&Output, Tensor)> = feeds.iter().map(|(o, t)| (o, t.clone())).collect();
        let fetch_refs: Vec<&Output> = fetches.iter().collect();
        let (values, metadata) = self.session.run_with_options(options, &feed_refs, &fetch_refs, &[])?;
        Ok((wanted.into_iter().map(String::from).zip(values).collect(), metadata))
    }

    /// The graph tensor of an input or output spec of signature `key`.
    fn tensor_of(&self, key: &str, spec: &super::TensorSpec) -> Result<Output> {
        if spec.is_sparse {
            return Err(Error::unimplemented(format!(
                "'{}' of signature '{key}' is a sparse or composite tensor, which tensorgraph does not feed or fetch by key",
                spec.key
            )));
        }
        self.graph.tensor_by_name(&spec.name).map_err(|e| e.context(format!("'{}' of signature '{key}'", spec.key)))
    }
}

/// Every input and output of every signature (by tensor name) must be a tensor of `graph`.
/// Errors: `NotFound` listing all that are not, as `input 'x' of signature 'k': ...`.
fn check_signature_tensors(meta: &MetaGraphDef, graph: &Graph) -> Result<()> {
    let mut checks = Vec::new();
    for (key, def) in &meta.signature_def {
        for (side, map) in [("input", &def.inputs), ("output", &def.outputs)] {
            for (k, info) in map {
                if let Some(TensorInfoEncoding::Name(name)) = &info.encoding {
                    // TF2's init-op signature names an op (`NoOp`), which its loader runs
                    let found = if key == INIT_OP_SIGNATURE_KEY {
                        graph.operation_by_name(name.split(':').next().unwrap_or(name)).map(|_| ())
                    } else {
                        graph.tensor_by_name(name).map(|_| ())
                    };
                    checks.push(found.map_err(|e| e.context(format!("{side} '{k}' of signature '{key}'"))));
                }
            }
        }
    }
    all_or_every_error(checks, "signature inputs and outputs point to nothing in the graph").map(|_| ())
}

/// `'a', 'b'` for error messages (`none` when empty).
fn key_list<'a>(keys: impl Iterator<Item = &'a String>) -> String {
    let v: Vec<String> = keys.map(|k| format!("'{k}'")).collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
}

/// `x (x:0 float32 (-1, 3)), ...` for error messages.
fn spec_list(specs: &[super::TensorSpec]) -> String {
    if specs.is_empty() {
        return "none".to_string();
    }
    specs.iter().map(|s| format!("'{}' ({})", s.key, s)).collect::<Vec<_>>().join(", ")
}

/// The asset tensors and the paths they are fed (`loader_impl.get_asset_tensors`): from the
/// meta graph's `asset_file_def`, else from collection `saved_model_assets`.
fn asset_feeds(dir: &Path, meta: &MetaGraphDef, graph: &Graph) -> Result<Vec<(Output, Tensor)>> {
    let mut defs: Vec<AssetFileDef> = meta.asset_file_def.clone();
    if defs.is_empty() {
        if let Some(CollectionKind::AnyList(l)) = meta.collection_def.get(ASSETS_KEY).and_then(|c| c.kind.as_ref()) {
            for any in &l.value {
                defs.push(AssetFileDef::decode(any.value.as_slice()).map_err(|e| {
                    Error::data_loss(format!(
                        "collection '{ASSETS_KEY}' holds an AssetFileDef that does not decode: {e}"
                    ))
                })?);
            }
        }
    }
    let mut feeds = Vec::with_capacity(defs.len());
    for d in defs {
        let name = match d.tensor_info.as_ref().and_then(|t| t.encoding.as_ref()) {
            Some(TensorInfoEncoding::Name(n)) => n.clone(),
            _ => return Err(Error::invalid_argument(format!("asset '{}' names no tensor", d.filename))),
        };
        let tensor = graph.tensor_by_name(&name).map_err(|e| e.context(format!("asset '{}'", d.filename)))?;
        let path = dir.join("assets").join(&d.filename);
        let bytes = path.to_string_lossy().into_owned().into_bytes();
        feeds.push((tensor, Tensor::strings(&[], vec![bytes])?));
    }
    Ok(feeds)
}

/// The init op (`loader_impl.get_init_op`): signature `__saved_model_init_op`'s output of
/// that key, else collection `saved_model_main_op`'s single op, else `legacy_init_op`'s.
fn init_op(meta: &MetaGraphDef, graph: &Graph) -> Result<Option<Operation>> {
    if let Some(sig) = meta.signature_def.get(INIT_OP_SIGNATURE_KEY) {
        if let Some(TensorInfoEncoding::Name(n)) =
            sig.outputs.get(INIT_OP_SIGNATURE_KEY).and_then(|t| t.encoding.as_ref())
        {
            let op = n.split_once(':').map_or(n.as_str(), |(op, _)| op);
            return graph.operation_by_name(op).map(Some).map_err(|e| e.context("the init op signature"));
        }
    }
    for key in [MAIN_OP_KEY, LEGACY_INIT_OP_KEY] {
        let Some(c) = meta.collection_def.get(key) else { continue };
        let names = match &c.kind {
            Some(CollectionKind::NodeList(l)) => &l.value,
            _ => return Err(Error::invalid_argument(format!("collection '{key}' does not list an op"))),
        };
        if names.len() != 1 {
            return Err(Error::invalid_argument(format!(
                "Expected exactly one SavedModel init op in collection '{key}'. Found {}: {names:?}",
                names.len()
            )));
        }
        let n = &names[0];
        let op = n.split_once(':').map_or(n.as_str(), |(op, _)| op);
        return graph.operation_by_name(op).map(Some).map_err(|e| e.context(format!("collection '{key}'")));
    }
    Ok(None)
}
