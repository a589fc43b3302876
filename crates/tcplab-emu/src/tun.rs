//! A TUN device: the kernel hands the emulator every IP packet routed into it, and delivers every
//! packet the emulator writes as if it had arrived on that interface. Opened without the packet
//! information prefix (`IFF_NO_PI`) and without `IFF_VNET_HDR`, so the kernel segments and
//! checksums everything before the emulator sees it: no TSO, GSO or GRO can change packet sizes.
//! The device exists while its file descriptor is open and disappears with it, also when the
//! process is killed.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// `TUNSETIFF` from linux/if_tun.h: `_IOW('T', 202, int)`.
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: libc::c_short = 0x0001;
const IFF_NO_PI: libc::c_short = 0x1000;
/// `struct ifreq`: a 16-byte name, then a union whose first member is the flags.
const IFREQ_BYTES: usize = 40;

pub struct Tun {
    fd: OwnedFd,
    pub name: String,
}

impl Tun {
    /// Creates TUN device `name` (at most 15 bytes) in the calling thread's network namespace,
    /// non-blocking.
    pub fn create(name: &str) -> io::Result<Tun> {
        if name.is_empty() || name.len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("device name '{name}' must have 1 to {} bytes", libc::IFNAMSIZ - 1),
            ));
        }
        let path = CString::new("/dev/net/tun").expect("no NUL in a literal");
        // SAFETY: a plain open(2) of a NUL-terminated path; the result is checked.
        let raw = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a descriptor we just opened and own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut request = [0u8; IFREQ_BYTES];
        request[..name.len()].copy_from_slice(name.as_bytes());
        request[16..18].copy_from_slice(&(IFF_TUN | IFF_NO_PI).to_ne_bytes());
        // SAFETY: TUNSETIFF reads and writes a `struct ifreq`, which `request` is large enough for.
        if unsafe { libc::ioctl(fd.as_raw_fd(), TUNSETIFF, request.as_mut_ptr()) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Tun { fd, name: name.to_string() })
    }

    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// One packet into `buffer`; `None` when none is waiting.
    pub fn read(&self, buffer: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: read(2) into a buffer of the length given.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buffer.as_mut_ptr().cast(), buffer.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let error = io::Error::last_os_error();
        match error.kind() {
            io::ErrorKind::WouldBlock => Ok(None),
            _ => Err(error),
        }
    }

    /// Hands one packet to the kernel as if it arrived on this interface.
    pub fn write(&self, packet: &[u8]) -> io::Result<()> {
        // SAFETY: write(2) from a buffer of the length given.
        let n = unsafe { libc::write(self.fd.as_raw_fd(), packet.as_ptr().cast(), packet.len()) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}
