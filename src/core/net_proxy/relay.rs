//! Moving the bytes of a connection the proxy made, both ways, until both
//! sides are done: the end of one direction is passed on as a half-close
//! (`shutdown(SHUT_WR)`) and the other keeps going; an error in either ends
//! both (`tokio::io::copy_bidirectional`). A slow reader holds the data in
//! the buffers and the socket buffers (backpressure); nothing blocks the
//! runtime.
//!
//! The buffers are [`BUFFER`] bytes each way. Measured on a 50 MB download
//! through the proxy (`bench` `network-cost`, the CPU time of the server,
//! the proxy's thread and curl): 64 KiB buffers cost the proxy about 40 ms
//! of CPU; 256 KiB about 30 ms, with the wall time within a few percent of
//! 1 MiB's. `splice(2)` through a pipe (no copy through this process) cut
//! the proxy's own CPU to about 20 ms but moved more than that onto the
//! receiving program, whose reads of the spliced pages took 35–45 ms
//! instead of 20: the whole path was slower, so it is not used.

use tokio::net::TcpStream;

/// The copy buffers' size each way: half a MiB per connection (tokio's
/// default of 8 KiB costs a quarter of a large download's throughput).
pub(super) const BUFFER: usize = 256 << 10;

/// Relays `a` and `b` until both directions ended or one failed.
pub(super) async fn relay(mut a: TcpStream, mut b: TcpStream) {
    let _ = tokio::io::copy_bidirectional_with_sizes(&mut a, &mut b, BUFFER, BUFFER).await;
}
