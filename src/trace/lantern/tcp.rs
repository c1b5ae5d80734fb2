//! Lantern's TCP connection model: handshake round trips, slow start up to what the
//! throughput allows per round trip, and H2's bytes downloaded ahead for the next request.

const SEGMENT_SIZE: f64 = 1460.0;
const INITIAL_CONGESTION_WINDOW: f64 = 10.0;

#[derive(Clone, Debug)]
pub(super) struct Connection {
    pub(super) warmed: bool,
    ssl: bool,
    multiplexed: bool,
    rtt: f64,
    pub(super) throughput: f64,
    server_latency: f64,
    pub(super) congestion_window: f64,
    pub(super) h2_overflow_bytes: f64,
}

/// How far a download got (ms, bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Download {
    pub(super) time_elapsed: f64,
    pub(super) bytes_downloaded: f64,
    pub(super) extra_bytes_downloaded: f64,
    pub(super) congestion_window: f64,
}

impl Connection {
    pub(super) fn new(
        rtt: f64,
        throughput: f64,
        server_latency: f64,
        ssl: bool,
        multiplexed: bool,
    ) -> Self {
        Connection {
            warmed: false,
            ssl,
            multiplexed,
            rtt,
            throughput,
            server_latency,
            congestion_window: INITIAL_CONGESTION_WINDOW,
            h2_overflow_bytes: 0.0,
        }
    }

    pub(super) fn multiplexed(&self) -> bool {
        self.multiplexed
    }

    /// How many connections can each get a segment per round trip at this throughput.
    pub(super) fn maximum_saturated(rtt: f64, throughput: f64) -> f64 {
        let bytes_per_second = 1000.0 / rtt * SEGMENT_SIZE;
        (throughput / (bytes_per_second * 8.0)).floor()
    }

    fn maximum_congestion_window(&self) -> f64 {
        let bytes_per_round_trip = self.throughput / 8.0 * (self.rtt / 1000.0);
        (bytes_per_round_trip / SEGMENT_SIZE).floor()
    }

    pub(super) fn set_h2_overflow_bytes(&mut self, bytes: f64) {
        if self.multiplexed {
            self.h2_overflow_bytes = bytes;
        }
    }

    /// Downloads `bytes` after `already` ms of this request, for at most `limit` ms.
    pub(super) fn download(&self, bytes: f64, already: f64, limit: f64, dns: f64) -> Download {
        let bytes = match self.multiplexed {
            true => bytes - self.h2_overflow_bytes,
            false => bytes,
        };
        let (two_way, one_way) = (self.rtt, self.rtt / 2.0);
        let maximum_window = self.maximum_congestion_window();
        let handshake_and_request = match self.warmed {
            true => one_way,
            false => dns + 3.0 * one_way + if self.ssl { two_way } else { 0.0 },
        };
        let mut first_byte = handshake_and_request + self.server_latency + one_way;
        if self.warmed && self.multiplexed {
            first_byte = 0.0;
        }
        let for_first_byte = (first_byte - already).max(0.0);
        let limit = limit - for_first_byte;
        let mut window = self.congestion_window.min(maximum_window);
        let mut total = match for_first_byte > 0.0 {
            true => window * SEGMENT_SIZE,
            false => 0.0,
        };
        let mut elapsed = 0.0;
        let mut remaining = bytes - total;
        while remaining > 0.0 && elapsed <= limit {
            elapsed += two_way;
            window = (window * 2.0).min(maximum_window).max(1.0);
            let in_window = window * SEGMENT_SIZE;
            total += in_window;
            remaining -= in_window;
        }
        Download {
            time_elapsed: for_first_byte + elapsed,
            bytes_downloaded: total.min(bytes).max(0.0),
            extra_bytes_downloaded: match self.multiplexed {
                true => (total - bytes).max(0.0),
                false => 0.0,
            },
            congestion_window: window,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Connection;

    #[test]
    fn a_cold_connection_pays_dns_handshake_and_server_time() {
        // The render-blocking fixture's document: 0.9 ms RTT, 1.8 Mbit/s, 254 ms server.
        let c = Connection::new(0.9, 1_809_699.2, 254.0945, false, false);
        let d = c.download(468.0, 0.0, f64::INFINITY, 1.8);
        assert!((d.time_elapsed - 258.5945).abs() < 1e-9, "{d:?}");
        assert_eq!(d.bytes_downloaded, 468.0);
        let mut warm = c.clone();
        warm.warmed = true;
        assert!(warm.download(468.0, 0.0, f64::INFINITY, 0.0).time_elapsed < 256.0);
    }
}
