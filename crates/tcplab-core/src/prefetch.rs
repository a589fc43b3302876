//! Cache prefetch hints. A hint changes no result: it only asks the CPU to start loading a cache
//! line that the simulation will read soon, so that the load overlaps other work.

/// Starts loading the cache line that holds `address`; any address is allowed (a prefetch never
/// faults), but a useful one lies within a live value.
#[inline]
pub fn prefetch_address(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is only a hint: it reads nothing the program sees and never faults.
        unsafe { _mm_prefetch(address as *const i8, _MM_HINT_T0) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// The address of something a later event will likely read, kept as a hint to prefetch it then
/// (None: nothing to prefetch). Only an address: it may have been freed or moved by then, which
/// a prefetch tolerates.
pub type Hint = Option<std::num::NonZeroUsize>;

/// The hint for `value`'s address.
pub fn hint<T: ?Sized>(value: *const T) -> Hint {
    std::num::NonZeroUsize::new(value as *const u8 as usize)
}

/// Starts loading the cache line a hint gives, if any.
#[inline]
pub fn prefetch_hint(hint: Hint) {
    if let Some(address) = hint {
        prefetch_address(address.get() as *const u8);
    }
}

/// Starts loading the cache line that holds `value`.
#[inline]
pub fn prefetch<T>(value: &T) {
    prefetch_address(value as *const T as *const u8);
}

/// Starts loading the cache lines of `value` that hold its first `bytes` bytes.
#[inline]
pub fn prefetch_first_bytes<T>(value: &T, bytes: usize) {
    let start = value as *const T as *const u8;
    for offset in (0..bytes.min(std::mem::size_of::<T>())).step_by(64) {
        prefetch_address(start.wrapping_add(offset));
    }
}

/// Starts loading every cache line of `value`.
#[inline]
pub fn prefetch_all<T>(value: &T) {
    prefetch_first_bytes(value, std::mem::size_of::<T>());
}

/// Starts loading the entry `ahead` places behind the front of a FIFO, if it has one. A FIFO long
/// enough to have left the caches (a bottleneck's queue, or its wire at 10 Gbit/s: thousands of
/// entries written milliseconds ago) is read front to back, a cache line every few entries, and
/// each line's first read waited for memory.
#[inline]
pub fn prefetch_fifo_ahead<T>(fifo: &std::collections::VecDeque<T>, ahead: usize) {
    if let Some(entry) = fifo.get(ahead) {
        prefetch(entry);
    }
}

/// Starts loading the slot `ahead` places past the back of a FIFO, where a later push will write
/// (unless the ring wraps or grows first, when the hint is only wasted). A store to a slot that
/// has left the caches holds up the stores behind it until the line arrives.
#[inline]
pub fn prefetch_fifo_slot_past_back<T>(fifo: &std::collections::VecDeque<T>, ahead: usize) {
    prefetch_address(fifo_slot_past_back(fifo, ahead) as *const u8);
}

/// The address of the slot `ahead` places past the back of a FIFO's ring (0: where the next push
/// writes), unless the ring wraps or grows first. Only for hints: it may lie past the buffer.
#[inline]
pub fn fifo_slot_past_back<T>(fifo: &std::collections::VecDeque<T>, ahead: usize) -> *const T {
    let (older, newer) = fifo.as_slices();
    let newest = if newer.is_empty() { older } else { newer };
    newest.as_ptr().wrapping_add(newest.len() + ahead)
}
