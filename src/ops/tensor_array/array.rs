//! The state of one TensorArray during a run (TensorFlow's `tensor_array.h`): its
//! elements and what happened to each (written, read, cleared), and the rules of writing
//! and reading them, with TensorFlow's messages.

use crate::error::{Error, Result};
use crate::ops::step_resources::{tf_dims, tf_dtype, tf_shape};
use crate::tensor::{DType, Shape, Tensor};

/// One element: its value (absent when only its shape is known: zeros), its shape once
/// written, and whether it was read or cleared by a read.
#[derive(Default, Clone)]
struct Elem {
    value: Option<Tensor>,
    shape: Option<Vec<usize>>,
    written: bool,
    read: bool,
    cleared: bool,
}

/// How a TensorArray is made: TensorArrayV3's attrs, or a gradient array's.
#[derive(Clone)]
pub struct TensorArrayConfig {
    pub dtype: DType,
    pub element_shape: Shape,
    pub identical_element_shapes: bool,
    pub dynamic_size: bool,
    pub clear_after_read: bool,
    /// A gradient array: writes to one index add up, reads of unwritten elements give zeros.
    pub is_grad: bool,
}

/// A TensorArray: `name` (the handle's second string, in messages), its config, elements.
pub struct TensorArray {
    pub name: String,
    cfg: TensorArrayConfig,
    closed: bool,
    elems: Vec<Elem>,
}

impl TensorArray {
    /// An array of `size` unwritten elements.
    pub fn new(name: String, size: usize, cfg: TensorArrayConfig) -> TensorArray {
        TensorArray { name, cfg, closed: false, elems: vec![Elem::default(); size] }
    }

    /// The element dtype.
    pub fn dtype(&self) -> DType {
        self.cfg.dtype
    }

    /// The number of elements.
    pub fn size(&self) -> usize {
        self.elems.len()
    }

    /// The (possibly partial) element shape.
    pub fn element_shape(&self) -> &Shape {
        &self.cfg.element_shape
    }

    /// The config of this array's gradient array (TensorFlow's `TensorArrayGradOp`): same
    /// dtype, the element shape with `prepend` in front when known, fixed size, writes
    /// that aggregate. Disables this array's dynamic size (gradients need its final size).
    pub fn grad_config(&mut self, prepend: &[usize]) -> TensorArrayConfig {
        self.cfg.dynamic_size = false;
        let element_shape = match self.cfg.element_shape.dims() {
            Some(d) => {
                let mut v: Vec<Option<usize>> = prepend.iter().map(|&p| Some(p)).collect();
                v.extend_from_slice(d);
                Shape::partial(&v)
            }
            None => Shape::unknown(),
        };
        TensorArrayConfig {
            dtype: self.cfg.dtype,
            element_shape,
            identical_element_shapes: self.cfg.identical_element_shapes,
            dynamic_size: false,
            clear_after_read: true,
            is_grad: true,
        }
    }

    /// Gives `grad` the shape of each written element of this array, `prepend` in front
    /// (TensorFlow's `CopyShapesFrom`), so reading an element no gradient reached gives zeros.
    pub fn copy_shapes_to(&self, grad: &mut TensorArray, prepend: &[usize]) {
        for (g, e) in grad.elems.iter_mut().zip(&self.elems) {
            if e.written && !g.written {
                if let Some(s) = &e.shape {
                    let mut shape = prepend.to_vec();
                    shape.extend_from_slice(s);
                    g.shape = Some(shape);
                    g.written = true;
                }
            }
        }
    }

    /// Frees the elements' values and marks the array closed (`TensorArrayCloseV3`); its
    /// size stays readable, as in TensorFlow.
    pub fn close(&mut self) {
        self.elems.iter_mut().for_each(|e| e.value = None);
        self.closed = true;
    }

    fn check_open(&self) -> Result<()> {
        if self.closed {
            return Err(Error::invalid_argument(format!("TensorArray {} has already been closed.", self.name)));
        }
        Ok(())
    }

    /// True when the array may grow.
    pub fn dynamic_size(&self) -> bool {
        self.cfg.dynamic_size
    }

    /// Writes `value` at `index` (adding it to what is there for a gradient array).
    /// Errors (`InvalidArgument`, TensorFlow's words): closed; index negative or past the
    /// size of a fixed-size array; wrong dtype; a shape incompatible with the element
    /// shape; an element already read; an element already written (not a gradient array);
    /// a gradient written twice with different shapes.
    pub fn write(&mut self, index: i64, value: Tensor) -> Result<()> {
        self.check_open()?;
        let name = &self.name;
        if index < 0 || (!self.cfg.dynamic_size && index as usize >= self.elems.len()) {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Tried to write to index {index} but array is not resizeable and size is: {}",
                self.elems.len()
            )));
        }
        let i = index as usize;
        if i >= self.elems.len() {
            self.elems.resize(i + 1, Elem::default());
        }
        if value.dtype() != self.cfg.dtype {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Could not write to TensorArray index {index} because the value dtype is {} but TensorArray dtype is {}.",
                tf_dtype(value.dtype()),
                tf_dtype(self.cfg.dtype)
            )));
        }
        if !self.cfg.element_shape.is_compatible_with(value.shape()) {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Could not write to TensorArray index {index} because the value shape is {} which is incompatible with the TensorArray's inferred element shape: {} (consider setting infer_shape=False).",
                tf_dims(value.shape()),
                tf_shape(&self.cfg.element_shape)
            )));
        } else if self.cfg.identical_element_shapes && !self.cfg.element_shape.is_fully_defined() {
            self.cfg.element_shape = Shape::known(value.shape());
        }
        let e = &mut self.elems[i];
        if e.read {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Could not write to TensorArray index {index} because it has already been read."
            )));
        }
        if e.written && !self.cfg.is_grad {
            return Err(Error::invalid_argument(format!(
                "TensorArray {name}: Could not write to TensorArray index {index} because it has already been written to."
            )));
        }
        if e.written {
            let shape = e.shape.as_deref().unwrap_or(&[]);
            if shape != value.shape() {
                return Err(Error::invalid_argument(format!(
                    "TensorArray {name}: Could not aggregate to TensorArray index {index} because the existing shape is {} but the new input shape is {}.",
                    tf_dims(shape),
                    tf_dims(value.shape())
                )));
            }
            e.value = Some(match e.value.take() {
                None => value,
                Some(old) if old.num_elements() == 0 => value,
                Some(old) => add(&old, &value)?,
            });
        } else {
            e.shape = Some(value.shape().to_vec());
            e.value = Some(value);
            e.written = true;
        }
        Ok(())
    }

    /// Reads element `index`: its value, zeros of its shape when only the shape is known
    /// (a gradient array, or an unwritten element of a fully defined element shape).
    /// Errors (`InvalidArgument`, TensorFlow's words): closed; an index out of range (a
    /// gradient array grows instead); an unwritten element whose shape is not fully
    /// known; an element cleared by an earlier read (`clear_after_read`).
    pub fn read(&mut self, index: i64) -> Result<Tensor> {
        self.check_open()?;
        let is_grad = self.cfg.is_grad;
        if index < 0 || (!is_grad && index as usize >= self.elems.len()) {
            return Err(Error::invalid_argument(format!(
                "Tried to read from index {index} but array size is: {}",
                self.elems.len()
            )));
        }
        let i = index as usize;
        if i >= self.elems.len() || !self.elems[i].written {
            let own = self.elems.get(i).and_then(|e| e.shape.clone()).filter(|s| is_grad && !s.is_empty());
            let shape = match own {
                Some(s) => s,
                None => self.cfg.element_shape.to_vec().ok_or_else(|| {
                    Error::invalid_argument(format!(
                        "TensorArray {}: Could not read from TensorArray index {index}.  Furthermore, the element shape is not fully defined: {}.  It is possible you are working with a resizeable TensorArray and stop_gradients is not allowing the gradients to be written.  If you set the full element_shape property on the forward TensorArray, the proper all-zeros tensor will be returned instead of incurring this error.",
                        self.name,
                        tf_shape(&self.cfg.element_shape)
                    ))
                })?,
            };
            if i >= self.elems.len() {
                self.elems.resize(i + 1, Elem { shape: Some(shape.clone()), written: true, ..Elem::default() });
            }
            let e = &mut self.elems[i];
            e.shape = Some(shape);
            e.written = true;
        }
        let (dtype, clear) = (self.cfg.dtype, self.cfg.clear_after_read);
        let e = &mut self.elems[i];
        if e.cleared {
            return Err(Error::invalid_argument(format!(
                "TensorArray {}: Could not read index {index} twice because it was cleared after a previous read (perhaps try setting clear_after_read = false?).",
                self.name
            )));
        }
        let value = match &e.value {
            Some(v) if v.num_elements() > 0 || e.shape.as_deref() == Some(v.shape()) => v.clone(),
            _ => Tensor::try_zeros(dtype, e.shape.as_deref().unwrap_or(&[]))?,
        };
        if clear {
            e.value = None;
            e.cleared = true;
        }
        e.read = true;
        Ok(value)
    }
}

/// `a + b`, same dtype and shape (gradient aggregation).
fn add(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    fn sum<T: crate::ops::kernels::Num>(a: &Tensor, b: &Tensor) -> Result<Tensor> {
        let mut v = a.as_slice::<T>()?.to_vec();
        for (x, &y) in v.iter_mut().zip(b.as_slice::<T>()?) {
            *x += y;
        }
        Tensor::new(a.shape(), v)
    }
    crate::dispatch_numeric!(a.dtype(), "TensorArray gradient aggregation", T => sum::<T>(a, b))
}
