//! Flow-size distributions of the data-center workloads that transport papers simulate, as the
//! points of their published CDFs (size in bytes, cumulative fraction of flows). A size is drawn
//! by inverting the CDF with straight lines between points, as ns-2's EmpiricalRandomVariable
//! does with the same tables in the pFabric, PIAS and HPCC simulations.

use serde::{Deserialize, Serialize};

/// A named flow-size distribution (`sizes = "web_search"` in a `[[traffic]]` entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Workload {
    /// The background flows of a web-search cluster measured in the DCTCP paper (Alizadeh et
    /// al., "Data Center TCP (DCTCP)", SIGCOMM 2010, Figure 4): over half the bytes are in flows
    /// of more than 1 MB, most flows are below 100 KB. The points are those the pFabric paper
    /// (Alizadeh et al., SIGCOMM 2013, Figure 4) and HPCC (Li et al., SIGCOMM 2019) simulate,
    /// in bytes. Mean 1.71 MB.
    WebSearch,
    /// The data-mining cluster measured in the VL2 paper (Greenberg et al., "VL2: A Scalable and
    /// Flexible Data Center Network", SIGCOMM 2009, Figure 2): half the flows are one packet,
    /// almost all bytes are in the 1% of flows above 100 MB. The points are those pFabric and
    /// PIAS (Bai et al., NSDI 2015) simulate, given there in 1460-byte packets. Mean 7.47 MB.
    DataMining,
}

/// (size in bytes, cumulative fraction) of the web-search workload.
const WEB_SEARCH: &[(f64, f64)] = &[
    (0.0, 0.0),
    (10e3, 0.15),
    (20e3, 0.20),
    (30e3, 0.30),
    (50e3, 0.40),
    (80e3, 0.53),
    (200e3, 0.60),
    (1e6, 0.70),
    (2e6, 0.80),
    (5e6, 0.90),
    (10e6, 0.97),
    (30e6, 1.00),
];

/// The packet size the data-mining CDF is given in: 1460 bytes of payload.
const PACKET: f64 = 1460.0;

/// (size in bytes, cumulative fraction) of the data-mining workload: 1, 1, 2, 3, 7, 267, 2107,
/// 66667 and 666667 packets at 0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99 and 1.
const DATA_MINING: &[(f64, f64)] = &[
    (PACKET, 0.0),
    (PACKET, 0.5),
    (2.0 * PACKET, 0.6),
    (3.0 * PACKET, 0.7),
    (7.0 * PACKET, 0.8),
    (267.0 * PACKET, 0.9),
    (2107.0 * PACKET, 0.95),
    (66667.0 * PACKET, 0.99),
    (666667.0 * PACKET, 1.0),
];

impl Workload {
    pub const ALL: [Workload; 2] = [Workload::WebSearch, Workload::DataMining];

    pub fn name(self) -> &'static str {
        match self {
            Workload::WebSearch => "web_search",
            Workload::DataMining => "data_mining",
        }
    }

    /// The CDF's points: (bytes, cumulative fraction), both non-decreasing, ending at 1.
    pub fn points(self) -> &'static [(f64, f64)] {
        match self {
            Workload::WebSearch => WEB_SEARCH,
            Workload::DataMining => DATA_MINING,
        }
    }

    /// The size at cumulative fraction `u` in [0, 1): on the straight line between the two points
    /// around it. At least 1 byte (the web-search CDF starts at 0).
    pub fn size_at(self, u: f64) -> u64 {
        let points = self.points();
        let above = points.partition_point(|&(_, p)| p <= u).min(points.len() - 1).max(1);
        let ((x0, p0), (x1, p1)) = (points[above - 1], points[above]);
        let size = if p1 > p0 { x0 + (x1 - x0) * (u - p0) / (p1 - p0) } else { x1 };
        (size.round() as u64).max(1)
    }

    /// The mean size and the mean squared size in bytes (bytes^2) of the interpolated CDF: each
    /// segment is uniform between its ends, so it adds dp (a + b) / 2 and dp (a^2 + ab + b^2) / 3.
    pub fn moments(self) -> (f64, f64) {
        self.points().windows(2).fold((0.0, 0.0), |(mean, square), pair| {
            let ((a, p0), (b, p1)) = (pair[0], pair[1]);
            let dp = p1 - p0;
            (mean + dp * (a + b) / 2.0, square + dp * (a * a + a * b + b * b) / 3.0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_means_are_those_the_papers_simulations_use() {
        // Web search: 0.15 * 5e3 + 0.05 * 15e3 + 0.1 * 25e3 + 0.1 * 40e3 + 0.13 * 65e3 + 0.07 *
        // 140e3 + 0.1 * 600e3 + 0.1 * 1.5e6 + 0.1 * 3.5e6 + 0.07 * 7.5e6 + 0.03 * 20e6 bytes.
        let (web, _) = Workload::WebSearch.moments();
        assert!((web - 1_711_250.0).abs() < 1e-3, "{web}");
        // Data mining: 5116.6 packets of 1460 bytes (the simulations of pFabric and PIAS give the
        // mean as 5117 * 1460 bytes).
        let (mining, _) = Workload::DataMining.moments();
        assert!((mining / PACKET - 5116.6).abs() < 0.1, "{}", mining / PACKET);
    }

    #[test]
    fn sizes_follow_the_points_and_lie_between_them() {
        let web = Workload::WebSearch;
        assert_eq!(web.size_at(0.15), 10_000);
        assert_eq!(web.size_at(0.175), 15_000);
        assert_eq!(web.size_at(0.0), 1);
        // 10 MB + 20 MB x (0.9999999 - 0.97) / 0.03 = 29,999,933.3 bytes.
        assert_eq!(web.size_at(0.999_999_9), 29_999_933);
        let mining = Workload::DataMining;
        assert_eq!(mining.size_at(0.0), 1460);
        assert_eq!(mining.size_at(0.49), 1460);
        assert_eq!(mining.size_at(0.55), 2190);
        assert_eq!(mining.size_at(0.9), 267 * 1460);
        for workload in Workload::ALL {
            let points = workload.points();
            assert!(points.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1));
            assert_eq!(points.last().unwrap().1, 1.0);
            // The sizes drawn at evenly spaced fractions average to the analytic mean.
            let n = 1_000_000;
            let sum: f64 = (0..n).map(|i| workload.size_at((i as f64 + 0.5) / n as f64) as f64).sum();
            let (mean, _) = workload.moments();
            assert!((sum / n as f64 / mean - 1.0).abs() < 1e-3, "{}", workload.name());
        }
    }
}
