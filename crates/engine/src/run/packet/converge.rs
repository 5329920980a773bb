//! `sim.until = converged`: stop a packet run once its throughput and mean
//! latency are known well enough, by the method of batch means (Law and
//! Kelton, Simulation Modeling and Analysis, 5th ed., Sec. 9.5.3): the
//! measured window is cut into batches of `sim.batch`; each batch's
//! throughput and mean latency are one observation; the run stops at the
//! first batch boundary where, for both, the 95 % confidence half-width of
//! the mean of the observations (Student's t over at least `MIN_BATCHES`
//! of them) is at most `sim.rel_error` of that mean.
//!
//! The stop only shortens the run: its report is the report of the run
//! with `sim.duration` set to where it stopped. Batches must be long
//! enough to be nearly independent (many times the longest queueing
//! delay); the check cannot tell when they are not.

use crate::report::Convergence;
use crate::units::Time;

/// Fewest batches before the half-widths are trusted (Law and Kelton
/// suggest 10 to 30).
pub const MIN_BATCHES: usize = 10;

/// Student's t, two-sided 95 % (the 0.975 quantile), for 1 to 30 degrees
/// of freedom (any statistics table, e.g. NIST/SEMATECH e-Handbook of
/// Statistical Methods, Table 1.4.2.3).
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The 0.975 quantile of Student's t with `df` degrees of freedom (above
/// 30, the tabulated value at the next lower of 30, 40, 60 or 120: a
/// slightly wider interval).
pub fn t975(df: usize) -> f64 {
    match df {
        0 => f64::INFINITY,
        1..=30 => T975[df - 1],
        31..=39 => 2.042,
        40..=59 => 2.021,
        60..=119 => 2.000,
        _ => 1.980,
    }
}

/// The 95 % confidence half-width of the mean of `x`, relative to the
/// mean (infinite with fewer than two observations or a zero mean).
pub fn rel_half_width(x: &[f64]) -> f64 {
    let k = x.len();
    if k < 2 {
        return f64::INFINITY;
    }
    let mean = x.iter().sum::<f64>() / k as f64;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (k - 1) as f64;
    let half = t975(k - 1) * (var / k as f64).sqrt();
    if mean == 0.0 {
        f64::INFINITY
    } else {
        half / mean.abs()
    }
}

/// The batches of one run.
pub struct Batches {
    pub period: Time,
    rel_error: f64,
    /// Per batch: bytes delivered, mean latency (ps).
    throughput: Vec<f64>,
    latency: Vec<f64>,
    /// Totals at the last boundary: bytes, latency (ps), latency samples.
    last: (u64, u128, u64),
    /// Whether a boundary found both metrics converged (the run stopped).
    converged: bool,
}

impl Batches {
    pub fn new(period: Time, rel_error: f64) -> Batches {
        Batches { period, rel_error, throughput: vec![], latency: vec![], last: (0, 0, 0), converged: false }
    }

    /// A boundary: the run's totals so far (bytes delivered, latency
    /// summed in ps, frames whose latency counted). Returns whether both
    /// metrics have converged.
    pub fn boundary(&mut self, bytes: u64, latency_ps: u128, samples: u64) -> bool {
        let (b, l, n) = self.last;
        self.last = (bytes, latency_ps, samples);
        self.throughput.push((bytes - b) as f64);
        // (a batch with no latency sample leaves the latency unknown)
        self.latency.push(if samples > n { (latency_ps - l) as f64 / (samples - n) as f64 } else { f64::NAN });
        let (t, l) = self.errors();
        self.converged = self.throughput.len() >= MIN_BATCHES && t <= self.rel_error && l <= self.rel_error;
        self.converged
    }

    /// The relative half-widths of throughput and latency now.
    fn errors(&self) -> (f64, f64) {
        let lat = if self.latency.iter().any(|v| v.is_nan()) { f64::INFINITY } else { rel_half_width(&self.latency) };
        (rel_half_width(&self.throughput), lat)
    }

    /// What the report says of the stop, the measured window `measured_ps` long.
    pub fn report(&self, measured_ps: Time) -> Convergence {
        let (t, l) = self.errors();
        // (JSON has no infinity: an unknown half-width is reported as -1)
        let known = |e: f64| if e.is_finite() { e } else { -1.0 };
        Convergence {
            converged: self.converged,
            batches: self.throughput.len() as u64,
            measured_ps,
            throughput_rel_error: known(t),
            latency_rel_error: known(l),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::rng;
    use rand::Rng as _;

    /// A known case: 1, 2, 3, 4, 5 has mean 3, sample sd sqrt(2.5), and
    /// half-width 2.776 * sqrt(2.5 / 5).
    #[test]
    fn half_width_of_a_known_sample() {
        let want = 2.776 * (2.5f64 / 5.0).sqrt() / 3.0;
        assert!((rel_half_width(&[1.0, 2.0, 3.0, 4.0, 5.0]) - want).abs() < 1e-12);
        assert_eq!(rel_half_width(&[7.0]), f64::INFINITY);
    }

    /// The interval covers the true mean of independent normal batches
    /// about 95 % of the time, at 10 batches and at 50.
    #[test]
    fn the_interval_covers_the_mean_95_percent_of_the_time() {
        let mut r = rng(3, 0, 0);
        for k in [10, 50] {
            let trials = 4000;
            let covered = (0..trials)
                .filter(|_| {
                    // (sums of 12 uniforms: nearly normal, mean 106, sd 1)
                    let x: Vec<f64> = (0..k).map(|_| 100.0 + (0..12).map(|_| r.gen::<f64>()).sum::<f64>()).collect();
                    let mean = x.iter().sum::<f64>() / k as f64;
                    (mean - 106.0).abs() / mean <= rel_half_width(&x)
                })
                .count();
            let share = covered as f64 / trials as f64;
            assert!((share - 0.95).abs() < 0.015, "{k} batches: covered {share}");
        }
    }

    #[test]
    fn t_quantiles_fall_toward_the_normal() {
        assert_eq!(t975(9), 2.262);
        assert!((1..200).all(|d| t975(d) >= t975(d + 1)));
        assert!(t975(1000) > 1.959);
    }

    /// Steady batches converge once there are enough of them; a batch
    /// without latency samples keeps the latency unknown.
    #[test]
    fn converges_after_the_minimum_number_of_batches() {
        let mut b = Batches::new(1000, 0.01);
        let mut stops = vec![];
        for i in 1..=12u64 {
            stops.push(b.boundary(i * 1000, i as u128 * 50_000, i * 10));
        }
        assert_eq!(stops.iter().position(|&s| s), Some(MIN_BATCHES - 1));
        let mut b = Batches::new(1000, 0.01);
        b.boundary(1000, 0, 0);
        assert!(!(2..=20u64).any(|i| b.boundary(i * 1000, i as u128 * 5, i * 10)));
        let r = b.report(5);
        assert_eq!((r.converged, r.batches, r.latency_rel_error), (false, 20, -1.0));
    }
}
