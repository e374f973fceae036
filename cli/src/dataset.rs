//! Classification data for the demo: the iris and digits data sets shipped in the binary,
//! or a user's CSV (numeric feature columns, the last column the class).

use std::path::Path;

/// Fisher's iris data (150 rows, 4 features in cm, classes 0 setosa, 1 versicolor, 2 virginica),
/// as shipped with scikit-learn (the R copy, without the UCI file's two wrong points).
const IRIS_CSV: &str = include_str!("../data/iris.csv");

/// The optical handwritten digits (E. Alpaydin and C. Kaynak, UCI Machine Learning
/// Repository, 1998, CC BY 4.0): 1,797 images of 8x8 pixels, each pixel the count (0..16)
/// of set pixels in a 4x4 block of a 32x32 bitmap, 64 columns row by row, then the digit.
/// The copy scikit-learn ships as `load_digits` (`sklearn/datasets/data/digits.csv.gz`,
/// decompressed).
const DIGITS_CSV: &str = include_str!("../data/digits.csv");
/// Height and width of a digits image.
pub const DIGITS_SIDE: usize = 8;
/// The largest pixel value of a digits image.
pub const DIGITS_MAX_PIXEL: f32 = 16.0;

/// Rows of features with a class index each.
#[derive(Debug, Clone)]
pub struct Dataset {
    pub features: Vec<Vec<f32>>,
    pub labels: Vec<usize>,
    pub class_names: Vec<String>,
}

impl Dataset {
    /// The iris data set.
    pub fn iris() -> Dataset {
        let mut d = Dataset::parse(IRIS_CSV.as_bytes(), "iris.csv").expect("the shipped iris.csv parses");
        d.class_names = vec!["setosa".into(), "versicolor".into(), "virginica".into()];
        d
    }

    /// The digits data set: 64 pixel columns (0..16, row-major 8x8) and classes "0" to "9".
    pub fn digits() -> Dataset {
        Dataset::parse(DIGITS_CSV.as_bytes(), "digits.csv").expect("the shipped digits.csv parses")
    }

    /// Reads a CSV file: an optional header line, then rows of numeric features with the
    /// class (a number or a name) last. Errors name the file and the line.
    pub fn from_csv(path: &Path) -> Result<Dataset, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Dataset::parse(&bytes, &path.display().to_string())
    }

    fn parse(bytes: &[u8], file: &str) -> Result<Dataset, String> {
        let mut reader =
            csv::ReaderBuilder::new().has_headers(false).flexible(true).trim(csv::Trim::All).from_reader(bytes);
        let mut features = Vec::new();
        let mut raw_labels = Vec::new();
        let mut width = None;
        for (i, rec) in reader.records().enumerate() {
            let rec = rec.map_err(|e| format!("{file}: {e}"))?;
            let line = rec.position().map(|p| p.line()).unwrap_or(i as u64 + 1);
            if rec.iter().all(|f| f.is_empty()) {
                continue;
            }
            let n = rec.len();
            if n < 2 {
                return Err(format!(
                    "{file}, line {line}: expected at least one feature column and a class column, got {n} column(s)"
                ));
            }
            let parsed: Result<Vec<f32>, usize> =
                rec.iter().take(n - 1).enumerate().map(|(c, f)| f.parse::<f32>().map_err(|_| c)).collect();
            let row = match parsed {
                Ok(r) => r,
                Err(_) if features.is_empty() && width.is_none() => {
                    width = Some(n);
                    continue; // a header line
                }
                Err(c) => {
                    return Err(format!(
                        "{file}, line {line}, column {}: '{}' is not a number",
                        c + 1,
                        rec.get(c).unwrap_or("")
                    ))
                }
            };
            if let Some(bad) = row.iter().position(|v| !v.is_finite()) {
                return Err(format!(
                    "{file}, line {line}, column {}: '{}' is not a finite float32 number (NaN, infinity, or beyond ±3.4e38)",
                    bad + 1,
                    rec.get(bad).unwrap_or("")
                ));
            }
            match width {
                Some(w) if w != n => {
                    return Err(format!("{file}, line {line}: expected {w} columns like the lines before, got {n}"))
                }
                _ => width = Some(n),
            }
            features.push(row);
            raw_labels.push(rec.get(n - 1).unwrap_or("").to_string());
        }
        if features.is_empty() {
            return Err(format!("{file}: no data rows"));
        }
        // class names in sorted order (numbers numerically)
        let mut names: Vec<String> = raw_labels.clone();
        names.sort_by(|a, b| match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(x), Ok(y)) => x.total_cmp(&y),
            _ => a.cmp(b),
        });
        names.dedup();
        if names.len() < 2 {
            return Err(format!(
                "{file}: the class column (last) has only one value; a classifier needs at least two classes"
            ));
        }
        let labels = raw_labels.iter().map(|l| names.iter().position(|n| n == l).unwrap_or(0)).collect();
        Ok(Dataset { features, labels, class_names: names })
    }

    pub fn num_features(&self) -> usize {
        self.features[0].len()
    }

    pub fn num_classes(&self) -> usize {
        self.class_names.len()
    }
}
