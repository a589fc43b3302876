//! Time and waiting for the emulator's loop. Times are nanoseconds of `CLOCK_MONOTONIC`, which
//! every network namespace shares, so the endpoints' start times and the links' clock agree.

use std::io;

use libc::{c_int, pollfd, timespec};

pub fn monotonic_ns() -> u64 {
    let mut now = timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}

/// Waits until a descriptor in `fds` is readable or `timeout_ns` passes (nanosecond resolution:
/// `ppoll`, not `poll`'s milliseconds). Returns how many are ready.
pub fn wait_readable(fds: &mut [pollfd], timeout_ns: u64) -> io::Result<usize> {
    let timeout = timespec { tv_sec: (timeout_ns / 1_000_000_000) as _, tv_nsec: (timeout_ns % 1_000_000_000) as _ };
    // SAFETY: ppoll reads `fds.len()` pollfd entries and writes their `revents`.
    let ready = unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as _, &timeout, std::ptr::null()) };
    if ready < 0 {
        let error = io::Error::last_os_error();
        return if error.kind() == io::ErrorKind::Interrupted { Ok(0) } else { Err(error) };
    }
    Ok(ready as usize)
}

/// Real-time scheduling (`SCHED_FIFO`) for the calling thread, and a timer slack of 1 ns so that
/// wake-ups are not batched: on a loaded machine a relay at normal priority was measured late by
/// milliseconds. Returns false when not permitted (the run goes on, less precisely).
pub fn raise_to_realtime() -> bool {
    const PRIORITY: c_int = 50;
    let parameters = libc::sched_param { sched_priority: PRIORITY };
    // SAFETY: sched_setscheduler on the calling thread (pid 0) with a valid parameter block;
    // prctl(PR_SET_TIMERSLACK) takes a plain integer.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
        libc::sched_setscheduler(0, libc::SCHED_FIFO, &parameters) == 0
    }
}
