//! Jain's fairness index.

/// Jain's fairness index (sum x)^2 / (n sum x^2); 1 for equal shares, 1/n when one flow has all.
pub fn jain_index(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let sum: f64 = values.iter().sum();
    let sum_sq: f64 = values.iter().map(|x| x * x).sum();
    if values.is_empty() || sum_sq == 0.0 {
        return f64::NAN;
    }
    sum * sum / (n * sum_sq)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_bounds() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0, 5.0]), 1.0);
        assert_eq!(jain_index(&[8.0, 0.0, 0.0, 0.0]), 0.25);
        // (1 + 3)^2 / (2 * (1 + 9)) = 16 / 20.
        assert!((jain_index(&[1.0, 3.0]) - 0.8).abs() < 1e-12);
    }
}
