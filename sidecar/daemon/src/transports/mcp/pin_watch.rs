//! Change notification for the tool-pin file: one inotify watch per process on the state
//! directory (and on the pin file itself), read without blocking each time the cached pins are
//! used. The kernel queues the event inside the call that changes the file (the rename of a new
//! pin file, a write, an unlink, a change of attributes) before that call returns, so once a
//! change is complete the next look here sees it: the cache is never stale, and no `stat` of
//! the path is needed per call. Whenever the watch cannot vouch (no inotify, the directory
//! itself moved or gone, a read error) the caller reads the file as before.

use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use std::collections::HashMap;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// Watches of this process by pin file path.
static WATCHES: OnceLock<Mutex<HashMap<PathBuf, Weak<PinWatch>>>> = OnceLock::new();

/// A change counter for one pin file, kept by an inotify watch.
pub struct PinWatch {
    state: Mutex<State>,
}

struct State {
    fd: OwnedFd,
    /// The watch on the directory; `None` once it cannot vouch any more.
    dir: Option<i32>,
    /// The watch on the pin file's inode (edits through another link), when there is one.
    file: Option<i32>,
    /// The file name in the directory.
    name: Vec<u8>,
    /// Bumped for every event that may concern the file.
    changes: u64,
}

impl PinWatch {
    /// The process's watch of `path` (a file in an existing directory); `None` when inotify is
    /// unavailable, so the caller checks the file itself.
    pub fn of(path: &Path) -> Option<Arc<Self>> {
        let registry = WATCHES.get_or_init(|| Mutex::new(HashMap::new()));
        let mut watches = registry.lock().ok()?;
        if let Some(w) = watches.get(path).and_then(Weak::upgrade) {
            return Some(w);
        }
        let w = Arc::new(Self::open(path)?);
        watches.retain(|_, w| w.strong_count() > 0);
        watches.insert(path.to_owned(), Arc::downgrade(&w));
        Some(w)
    }

    fn open(path: &Path) -> Option<Self> {
        use std::os::unix::ffi::OsStrExt;
        let (dir, name) = (path.parent()?, path.file_name()?);
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
        let mask = WatchFlags::CREATE
            | WatchFlags::MOVED_TO
            | WatchFlags::MOVED_FROM
            | WatchFlags::DELETE
            | WatchFlags::MODIFY
            | WatchFlags::CLOSE_WRITE
            | WatchFlags::ATTRIB
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR;
        let dir = inotify::add_watch(&fd, dir, mask).ok()?;
        let state = State { fd, dir: Some(dir), file: None, name: name.as_bytes().to_vec(), changes: 0 };
        Some(Self { state: Mutex::new(state) })
    }

    /// Reads every event queued so far and returns the change count: equal counts mean the file
    /// did not change in between. `None` when the watch cannot vouch for the file.
    pub fn changes(&self) -> Option<u64> {
        let mut s = self.state.lock().ok()?;
        s.drain();
        s.dir.map(|_| s.changes)
    }

    /// Watches the file's current inode too (call before reading it): an edit through another
    /// link to it also counts as a change.
    pub fn watch_file(&self, path: &Path) {
        let Ok(mut s) = self.state.lock() else { return };
        let mask = WatchFlags::MODIFY
            | WatchFlags::CLOSE_WRITE
            | WatchFlags::ATTRIB
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::DONT_FOLLOW;
        s.file = inotify::add_watch(&s.fd, path, mask).ok();
    }
}

impl State {
    fn drain(&mut self) {
        let mut buf = [MaybeUninit::<u8>::uninit(); 4096];
        let mut reader = inotify::Reader::new(&self.fd, &mut buf);
        loop {
            let event = match reader.next() {
                Ok(e) => e,
                Err(rustix::io::Errno::AGAIN) => return,
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => {
                    self.dir = None;
                    return;
                }
            };
            let (wd, flags) = (event.wd(), event.events());
            let named = event.file_name().is_some_and(|n| n.to_bytes() == self.name.as_slice());
            if Some(wd) == self.dir {
                if flags.intersects(
                    ReadFlags::IGNORED | ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF | ReadFlags::UNMOUNT,
                ) {
                    self.dir = None;
                } else if named {
                    self.changes += 1;
                }
            } else {
                // The file's inode, an older inode of it, or a lost queue (overflow).
                self.changes += 1;
                if Some(wd) == self.file && flags.contains(ReadFlags::IGNORED) {
                    self.file = None;
                }
            }
        }
    }
}
