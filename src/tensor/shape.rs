//! `Shape`: a tensor shape whose rank and dimensions may be unknown at graph-build time,
//! as TensorFlow's `TensorShape`/`PartialTensorShape`.

use smallvec::SmallVec;
use std::fmt;

/// The dimensions of a shape of known rank: up to rank 4 without a heap allocation.
type Dims = SmallVec<[Option<usize>; 4]>;

/// A possibly partial shape. `dims == None` is an unknown rank; a `None` dimension is
/// unknown (`[None, 4]` for a batch placeholder).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Shape {
    dims: Option<Dims>,
}

impl Shape {
    /// A shape of unknown rank.
    pub fn unknown() -> Self {
        Shape { dims: None }
    }
    /// The 0-d (scalar) shape.
    pub fn scalar() -> Self {
        Shape { dims: Some(Dims::new()) }
    }
    /// A shape whose dimensions are all known.
    pub fn known(dims: &[usize]) -> Self {
        Shape { dims: Some(dims.iter().map(|&d| Some(d)).collect()) }
    }
    /// A shape of known rank, some dimensions possibly unknown.
    pub fn partial(dims: &[Option<usize>]) -> Self {
        Shape { dims: Some(Dims::from_slice(dims)) }
    }
    /// The rank, when known.
    pub fn rank(&self) -> Option<usize> {
        self.dims.as_ref().map(|d| d.len())
    }
    /// The dimensions, when the rank is known.
    pub fn dims(&self) -> Option<&[Option<usize>]> {
        self.dims.as_deref()
    }
    /// Dimension `i`, `None` when unknown (or the rank is unknown).
    pub fn dim(&self, i: usize) -> Option<usize> {
        self.dims.as_ref().and_then(|d| d.get(i).copied().flatten())
    }
    /// All dimensions, when every one is known.
    pub fn to_vec(&self) -> Option<Vec<usize>> {
        self.dims.as_ref()?.iter().copied().collect()
    }
    /// True when rank and all dimensions are known.
    pub fn is_fully_defined(&self) -> bool {
        self.to_vec().is_some()
    }
    /// True when a tensor of shape `concrete` may take this shape (unknowns match anything).
    pub fn is_compatible_with(&self, concrete: &[usize]) -> bool {
        match &self.dims {
            None => true,
            Some(d) => d.len() == concrete.len() && d.iter().zip(concrete).all(|(a, b)| a.is_none_or(|a| a == *b)),
        }
    }
    /// True when the two partial shapes can describe the same tensor.
    pub fn compatible(&self, other: &Shape) -> bool {
        match (&self.dims, &other.dims) {
            (Some(a), Some(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.is_none() || y.is_none() || x == y)
            }
            _ => true,
        }
    }
    /// The most specific shape compatible with both (their merge); `None` when incompatible.
    pub fn merge(&self, other: &Shape) -> Option<Shape> {
        match (&self.dims, &other.dims) {
            (None, _) => Some(other.clone()),
            (_, None) => Some(self.clone()),
            (Some(a), Some(b)) => {
                if a.len() != b.len() {
                    return None;
                }
                let mut out = Dims::with_capacity(a.len());
                for (x, y) in a.iter().zip(b) {
                    out.push(match (x, y) {
                        (Some(x), Some(y)) if x != y => return None,
                        (Some(x), _) => Some(*x),
                        (None, y) => *y,
                    });
                }
                Some(Shape { dims: Some(out) })
            }
        }
    }
}

/// A shape of known rank from its dimensions (`None`: unknown).
impl FromIterator<Option<usize>> for Shape {
    fn from_iter<I: IntoIterator<Item = Option<usize>>>(dims: I) -> Self {
        Shape { dims: Some(dims.into_iter().collect()) }
    }
}

impl From<&[usize]> for Shape {
    fn from(d: &[usize]) -> Self {
        Shape::known(d)
    }
}
impl<const N: usize> From<[usize; N]> for Shape {
    fn from(d: [usize; N]) -> Self {
        Shape::known(&d)
    }
}
impl<const N: usize> From<[Option<usize>; N]> for Shape {
    fn from(d: [Option<usize>; N]) -> Self {
        Shape::partial(&d)
    }
}
impl From<Vec<usize>> for Shape {
    fn from(d: Vec<usize>) -> Self {
        Shape::known(&d)
    }
}
impl From<Vec<Option<usize>>> for Shape {
    fn from(d: Vec<Option<usize>>) -> Self {
        Shape { dims: Some(Dims::from_slice(&d)) }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.dims {
            None => f.write_str("<unknown>"),
            Some(d) => {
                f.write_str("[")?;
                for (i, x) in d.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match x {
                        Some(v) => write!(f, "{v}")?,
                        None => f.write_str("?")?,
                    }
                }
                f.write_str("]")
            }
        }
    }
}

/// Formats a concrete shape as `[2, 3]`.
pub fn fmt_dims(d: &[usize]) -> String {
    Shape::known(d).to_string()
}
