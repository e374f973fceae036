//! Resources that live for one `Session::run` (TensorFlow's per-step resource manager):
//! the TensorArrays and stacks that ops create while a run executes, found again by the
//! string handle their creating op outputs, and dropped when the run ends.

use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A resource of one run, behind its own lock.
pub type StepResource<T> = Arc<Mutex<T>>;

/// The resources created during one run, by container and name (a TensorArray handle
/// `["_tensor_arrays", "ta_0"]` names container `_tensor_arrays`, resource `ta_0`).
#[derive(Default)]
pub struct StepResources {
    items: Mutex<HashMap<(String, String), Arc<dyn Any + Send + Sync>>>,
    counter: AtomicU64,
}

impl StepResources {
    /// A number unique within this run (0, 1, ...): the suffix of generated resource
    /// names (`TensorArrayV3_0`), as TensorFlow's process-wide counter but per run.
    pub fn next_id(&self) -> u64 {
        self.counter.fetch_add(1, Ordering::Relaxed)
    }

    /// Adds `value` as `container`/`name`. Errors: `AlreadyExists` when that name is taken.
    pub fn create<T: Send + 'static>(&self, container: &str, name: &str, value: T) -> Result<StepResource<T>> {
        let mut items = self.items.lock().unwrap_or_else(|e| e.into_inner());
        let key = (container.to_string(), name.to_string());
        if items.contains_key(&key) {
            return Err(Error::new(
                crate::error::Code::AlreadyExists,
                format!("Resource {container}/{name} already exists in this run"),
            ));
        }
        let r: StepResource<T> = Arc::new(Mutex::new(value));
        items.insert(key, r.clone());
        Ok(r)
    }

    /// The resource `container`/`name` of type `T`, or `None` when there is none.
    /// Errors: `InvalidArgument` when it is of another type.
    pub fn get<T: Send + 'static>(&self, container: &str, name: &str) -> Result<Option<StepResource<T>>> {
        let items = self.items.lock().unwrap_or_else(|e| e.into_inner());
        match items.get(&(container.to_string(), name.to_string())) {
            None => Ok(None),
            Some(r) => r.clone().downcast::<Mutex<T>>().map(Some).map_err(|_| {
                Error::invalid_argument(format!("resource {container}/{name} is of another type than requested"))
            }),
        }
    }

    /// The resource `container`/`name`, made by `make` when there is none yet.
    /// Errors: those of `make`; `InvalidArgument` when the existing one is of another type.
    pub fn get_or_create<T: Send + 'static>(
        &self,
        container: &str,
        name: &str,
        make: impl FnOnce() -> Result<T>,
    ) -> Result<StepResource<T>> {
        if let Some(r) = self.get(container, name)? {
            return Ok(r);
        }
        self.create(container, name, make()?)
    }
}

/// The handle tensor of a step resource: a string vector `[container, name]`, as
/// TensorFlow's TensorArray handles.
pub fn handle_tensor(container: &str, name: &str) -> Tensor {
    Tensor::strings(&[2], vec![container.as_bytes().to_vec(), name.as_bytes().to_vec()])
        .expect("two strings fill a [2] tensor")
}

/// The (container, name) of handle tensor `t`. Errors: `InvalidArgument` in TensorFlow's
/// words when it is not a 2-element string vector.
pub fn parse_handle(t: &Tensor, what: &str) -> Result<(String, String)> {
    let parts: Option<Vec<String>> = match t.storage() {
        crate::tensor::Storage::Str(v) if v.len() == 2 => v.iter().map(|b| String::from_utf8(b.clone()).ok()).collect(),
        _ => None,
    };
    match parts {
        Some(mut p) if p.len() == 2 => {
            let name = p.pop().unwrap_or_default();
            Ok((p.pop().unwrap_or_default(), name))
        }
        _ => Err(Error::invalid_argument(format!(
            "{what} handle must be 2-element vector, but had shape: {}",
            crate::tensor::Shape::known(t.shape())
        ))),
    }
}

/// `dims` as TensorFlow's `TensorShape::DebugString` writes them: `[2,3]`.
pub fn tf_dims(dims: &[usize]) -> String {
    format!("[{}]", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(","))
}

/// A partial shape as TensorFlow's `PartialTensorShape::DebugString`: `[?,3]`, `<unknown>`.
pub fn tf_shape(s: &crate::tensor::Shape) -> String {
    match s.dims() {
        None => "<unknown>".to_string(),
        Some(d) => format!(
            "[{}]",
            d.iter().map(|x| x.map_or("?".to_string(), |v| v.to_string())).collect::<Vec<_>>().join(",")
        ),
    }
}

/// `dtype` as TensorFlow's `DataTypeString` writes it in kernel messages: `float`,
/// `double`, `half`, else the usual name (`int32`).
pub fn tf_dtype(dtype: crate::tensor::DType) -> &'static str {
    match dtype {
        crate::tensor::DType::Float => "float",
        crate::tensor::DType::Double => "double",
        crate::tensor::DType::Half => "half",
        d => d.name(),
    }
}
