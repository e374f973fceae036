//! [`SavedModelBuilder`]: `tf.compat.v1.saved_model.Builder` — writes a SavedModel
//! directory (`saved_model.pb`, `variables/variables.*`) that TensorFlow loads.

use super::read::fmt_tags;
use super::{variables_prefix, MAIN_OP_KEY, PREDICT_METHOD_NAME, SAVED_MODEL_FILENAME_PB, SAVED_MODEL_FILENAME_PBTXT};
use crate::error::{Error, Result};
use crate::format::atomic_file::{io_error, write_atomically};
use crate::format::proto::meta_graph::NodeList;
use crate::format::proto::text::TextFormat;
use crate::format::proto::{
    dtype_to_proto, CollectionDef, CollectionKind, MetaGraphDef, SavedModel, SignatureDef, TensorInfo,
    TensorInfoEncoding, TensorShapeProto, SAVED_MODEL_SCHEMA_VERSION,
};
use crate::graph::{Graph, Operation, Output};
use crate::io::meta_graph::export_meta_graph;
use crate::session::Session;
use crate::train::Saver;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `tf.compat.v1.saved_model.utils.build_tensor_info(tensor)`: the `TensorInfo` of a graph
/// tensor (its name `op:i`, dtype and static shape).
pub fn build_tensor_info(tensor: &Output) -> TensorInfo {
    TensorInfo {
        encoding: Some(TensorInfoEncoding::Name(tensor.name())),
        dtype: dtype_to_proto(tensor.dtype()),
        tensor_shape: Some(TensorShapeProto::from_shape(&tensor.shape())),
    }
}

/// `tf.compat.v1.saved_model.signature_def_utils.predict_signature_def(inputs, outputs)`: a
/// signature with method `tensorflow/serving/predict` whose inputs and outputs are the given
/// tensors under the given keys.
pub fn predict_signature_def(inputs: &[(&str, &Output)], outputs: &[(&str, &Output)]) -> SignatureDef {
    let infos = |v: &[(&str, &Output)]| v.iter().map(|(k, t)| (k.to_string(), build_tensor_info(t))).collect();
    SignatureDef {
        inputs: infos(inputs),
        outputs: infos(outputs),
        method_name: PREDICT_METHOD_NAME.to_string(),
        defaults: BTreeMap::new(),
    }
}

/// Builds a SavedModel directory (`tf.compat.v1.saved_model.Builder`): the first meta graph
/// with [`add_meta_graph_and_variables`](Self::add_meta_graph_and_variables) (which writes
/// the variables), more tag sets of the same graph with
/// [`add_meta_graph`](Self::add_meta_graph), then [`save`](Self::save).
///
/// ```no_run
/// # use tensorgraph::{ops, DType, Graph, Session, init};
/// use tensorgraph::io::saved_model::{predict_signature_def, SavedModelBuilder};
/// # fn main() -> tensorgraph::Result<()> {
/// # let graph = Graph::new(); let root = graph.scope();
/// # let x = ops::placeholder(&root.named("x"), DType::Float, [None, Some(2)])?;
/// # let w = root.get_variable("w", [2, 1], DType::Float, init::zeros())?;
/// # let y = ops::matmul(&root.named("y"), &x, &w)?;
/// # let sess = Session::new(&graph)?; sess.run_targets(&[&root.global_variables_initializer()?])?;
/// let mut builder = SavedModelBuilder::new("export/1")?;
/// let sig = predict_signature_def(&[("x", &x)], &[("y", &y)]);
/// builder.add_meta_graph_and_variables(&sess, &["serve"], [("serving_default".to_string(), sig)].into(), None)?;
/// builder.save()?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct SavedModelBuilder {
    export_dir: PathBuf,
    saved_model: SavedModel,
    /// The graph saved by `add_meta_graph_and_variables`, with the saver that wrote its
    /// variables (`None` without variables), whose `save/` ops every meta graph shares.
    saved: Option<(Graph, Option<Saver>)>,
}

impl SavedModelBuilder {
    /// A builder writing into `export_dir`, created (with its parents) when absent, as
    /// TensorFlow's builder does.
    /// Errors: `AlreadyExists` when `export_dir` exists and is not empty (TensorFlow's
    /// rule: a SavedModel is never written over another); I/O errors naming the directory.
    pub fn new(export_dir: impl AsRef<Path>) -> Result<SavedModelBuilder> {
        let dir = export_dir.as_ref().to_path_buf();
        if dir.exists() {
            let mut entries = std::fs::read_dir(&dir).map_err(|e| io_error(e, "read", &dir))?;
            if entries.next().is_some() {
                return Err(Error::already_exists(format!(
                    "Export directory {} already exists, and isn't empty. Choose a different export directory (a new version number), or delete its contents",
                    dir.display()
                )));
            }
        } else {
            std::fs::create_dir_all(&dir).map_err(|e| io_error(e, "create", &dir))?;
        }
        Ok(SavedModelBuilder {
            export_dir: dir,
            saved_model: SavedModel { saved_model_schema_version: SAVED_MODEL_SCHEMA_VERSION, meta_graphs: vec![] },
            saved: None,
        })
    }

    /// `add_meta_graph_and_variables(sess, tags, signature_def_map, main_op=...)`: saves
    /// every global variable's value in `session` to `variables/variables.index` and
    /// `variables/variables.data-00000-of-00001` (no `checkpoint` state file, as TensorFlow),
    /// and adds the session's graph as a meta graph tagged `tags`, with its saver
    /// (`save/` ops, added to the graph the first time), collections, the signatures, and
    /// `main_op` (run by loaders after restoring, e.g. a `tables_initializer` or a group of
    /// local variables' initializers) in collection `saved_model_main_op`.
    ///
    /// Errors: `FailedPrecondition` when called a second time (use
    /// [`add_meta_graph`](Self::add_meta_graph)) or when a variable is uninitialized
    /// (naming it); `InvalidArgument` when a signature names a tensor the graph lacks or
    /// gives it another dtype, or `main_op` belongs to another graph; write errors naming
    /// the file.
    pub fn add_meta_graph_and_variables(
        &mut self,
        session: &Session,
        tags: &[&str],
        signature_def_map: BTreeMap<String, SignatureDef>,
        main_op: Option<&Operation>,
    ) -> Result<()> {
        if self.saved.is_some() {
            return Err(Error::failed_precondition(
                "Graph state including variables and assets has already been saved; add further tag sets with add_meta_graph",
            ));
        }
        let graph = session.graph();
        validate_signatures(graph, &signature_def_map)?;
        let vars_dir = self.export_dir.join("variables");
        std::fs::create_dir_all(&vars_dir).map_err(|e| io_error(e, "create", &vars_dir))?;
        let vars = graph.global_variables();
        let (meta, saver) = if vars.is_empty() {
            (export_meta_graph(graph, None)?, None)
        } else {
            let saver = Saver::with_var_list(&vars)?.write_meta_graph(false);
            saver.write_checkpoint(session, &variables_prefix(&self.export_dir))?;
            (saver.export_meta_graph()?, Some(saver))
        };
        self.add(graph, meta, tags, signature_def_map, main_op)?;
        self.saved = Some((graph.clone(), saver));
        Ok(())
    }

    /// `add_meta_graph(tags, signature_def_map, main_op=...)`: adds the graph saved by
    /// [`add_meta_graph_and_variables`](Self::add_meta_graph_and_variables) again under
    /// another tag set (other signatures, another main op), sharing its variables.
    ///
    /// Errors: `FailedPrecondition` before `add_meta_graph_and_variables`; as it for the
    /// signatures and `main_op`.
    pub fn add_meta_graph(
        &mut self,
        tags: &[&str],
        signature_def_map: BTreeMap<String, SignatureDef>,
        main_op: Option<&Operation>,
    ) -> Result<()> {
        let (graph, saver) = self.saved.as_ref().ok_or_else(|| {
            Error::failed_precondition(
                "Variables and assets have not been saved yet; call add_meta_graph_and_variables for the first tag set",
            )
        })?;
        let graph = graph.clone();
        validate_signatures(&graph, &signature_def_map)?;
        let meta = match saver {
            // the save ops of the first meta graph, not a second set
            Some(saver) => saver.export_meta_graph()?,
            None => export_meta_graph(&graph, None)?,
        };
        self.add(&graph, meta, tags, signature_def_map, main_op)
    }

    fn add(
        &mut self,
        graph: &Graph,
        mut meta: MetaGraphDef,
        tags: &[&str],
        signature_def_map: BTreeMap<String, SignatureDef>,
        main_op: Option<&Operation>,
    ) -> Result<()> {
        let tag_list: Vec<String> = tags.iter().map(|t| t.to_string()).collect();
        let taken = self.saved_model.meta_graphs.iter().any(|m| {
            let have = super::read::tags_of(m);
            fmt_tags(&have) == fmt_tags(&tag_list)
        });
        if taken {
            return Err(Error::already_exists(format!(
                "the SavedModel already has a meta graph tagged {}",
                fmt_tags(&tag_list)
            )));
        }
        if let Some(op) = main_op {
            if !op.graph().same(graph) {
                return Err(Error::invalid_argument(format!(
                    "main_op {} is not an element of the saved graph",
                    op.name()
                )));
            }
            meta.collection_def.insert(
                MAIN_OP_KEY.to_string(),
                CollectionDef { kind: Some(CollectionKind::NodeList(NodeList { value: vec![op.name()] })) },
            );
        }
        let info = meta.meta_info_def.get_or_insert_with(Default::default);
        info.tags = tag_list;
        meta.signature_def = signature_def_map;
        self.saved_model.meta_graphs.push(meta);
        Ok(())
    }

    /// `save()`: writes `saved_model.pb` (binary, TensorFlow's deterministic encoding),
    /// atomically. Returns its path.
    /// Errors: `FailedPrecondition` when no meta graph was added; write errors naming the
    /// file.
    pub fn save(&self) -> Result<PathBuf> {
        self.check_added()?;
        let path = self.export_dir.join(SAVED_MODEL_FILENAME_PB);
        write_atomically(&path, &self.saved_model.to_bytes())?;
        Ok(path)
    }

    /// `save(as_text=True)`: writes `saved_model.pbtxt` instead (for debugging, as
    /// TensorFlow advises), atomically. Returns its path.
    /// Errors: as [`save`](Self::save).
    pub fn save_as_text(&self) -> Result<PathBuf> {
        self.check_added()?;
        let path = self.export_dir.join(SAVED_MODEL_FILENAME_PBTXT);
        write_atomically(&path, self.saved_model.to_text()?.as_bytes())?;
        Ok(path)
    }

    /// The `SavedModel` message built so far.
    pub fn saved_model(&self) -> &SavedModel {
        &self.saved_model
    }

    fn check_added(&self) -> Result<()> {
        if self.saved_model.meta_graphs.is_empty() {
            return Err(Error::failed_precondition(
                "the SavedModel has no meta graph; call add_meta_graph_and_variables before save",
            ));
        }
        Ok(())
    }
}

/// Every signature's tensors exist in `graph` with the dtype the signature gives
/// (`_validate_signature_def_map`, stricter: TensorFlow checks only that names are set).
fn validate_signatures(graph: &Graph, map: &BTreeMap<String, SignatureDef>) -> Result<()> {
    for (key, sig) in map {
        for (side, infos) in [("input", &sig.inputs), ("output", &sig.outputs)] {
            for (k, info) in infos {
                let Some(TensorInfoEncoding::Name(name)) = &info.encoding else {
                    return Err(Error::invalid_argument(format!(
                        "{side} '{k}' of signature '{key}' names no tensor; build it with build_tensor_info"
                    )));
                };
                let t =
                    graph.tensor_by_name(name).map_err(|e| e.context(format!("{side} '{k}' of signature '{key}'")))?;
                if dtype_to_proto(t.dtype()) != info.dtype {
                    return Err(Error::invalid_argument(format!(
                        "{side} '{k}' of signature '{key}' gives {name} the dtype {}, but the tensor is {}",
                        crate::format::proto::data_type_name(info.dtype),
                        t.dtype()
                    )));
                }
            }
        }
    }
    Ok(())
}
