//! A throwaway PostgreSQL for tests (feature `test-support`): one cluster per test process in
//! a temporary directory (a copy of a template `initdb` made once per installation), served by
//! `postgres` on a free loopback port, and one new database per test. Nothing else is ever
//! connected to.
//!
//! The cluster stops and its directory goes when the last [`TestDatabase`] of the process is
//! dropped; a test process that is killed takes its server with it (the server is started
//! with a parent-death signal). `initdb` refuses to run as root, so as root the cluster runs as
//! the `postgres` user. The binaries are found in `SWITCHBOARD_PG_BIN`, on `PATH`, or under
//! `/usr/lib/postgresql/*/bin` (`scripts/setup.sh` installs Debian's `postgresql`); without
//! them a test fails when `CI=true` and is skipped loudly otherwise.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak, mpsc};
use std::time::{Duration, Instant};

use sqlx::{Connection, Executor, PgConnection};

/// How long a new server gets to accept connections.
const READY_WITHIN: Duration = Duration::from_secs(30);

static CLUSTER: Mutex<Weak<Cluster>> = Mutex::new(Weak::new());
static NEXT_DB: AtomicU64 = AtomicU64::new(0);

/// One test's own database on the process's cluster.
pub struct TestDatabase {
    /// `postgres://…` of this database alone.
    pub url: String,
    /// The cluster's data directory (where its table files and WAL are).
    pub data_dir: PathBuf,
    _cluster: Arc<Cluster>,
}

/// A new database for `test`, or `None` (with a loud SKIPPED line) when PostgreSQL is not
/// installed outside CI. Panics when the cluster cannot be made.
pub async fn database_or_skip(test: &str) -> Option<TestDatabase> {
    let Some(bin) = pg_bin() else {
        let message =
            "PostgreSQL binaries not found (set SWITCHBOARD_PG_BIN or run scripts/setup.sh)";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
        eprintln!("SKIPPED {test}: {message}");
        return None;
    };
    let cluster = tokio::task::spawn_blocking(move || shared(&bin))
        .await
        .unwrap_or_else(|e| panic!("starting the test cluster: {e}"));
    let name = format!(
        "t_{}_{}",
        std::process::id(),
        NEXT_DB.fetch_add(1, Ordering::Relaxed)
    );
    let mut admin = PgConnection::connect(&cluster.url("postgres"))
        .await
        .unwrap_or_else(|e| panic!("connecting to the test cluster: {e}"));
    admin
        .execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .await
        .unwrap_or_else(|e| panic!("creating database {name}: {e}"));
    let _ = admin.close().await;
    Some(TestDatabase {
        url: cluster.url(&name),
        data_dir: cluster.dir.path().join("data"),
        _cluster: cluster,
    })
}

/// The process's cluster, started when no test holds it.
fn shared(bin: &Path) -> Arc<Cluster> {
    let mut slot = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(cluster) = slot.upgrade() {
        return cluster;
    }
    let cluster = Arc::new(Cluster::start(bin));
    *slot = Arc::downgrade(&cluster);
    cluster
}

/// The directory holding `initdb`, `postgres` and `pg_isready` (an `initdb` on `PATH` is
/// followed to its real directory, where Debian keeps the other two).
pub fn pg_bin() -> Option<PathBuf> {
    let has = |dir: &Path| {
        ["initdb", "postgres", "pg_isready"]
            .iter()
            .all(|b| dir.join(b).is_file())
    };
    if let Some(dir) = std::env::var_os("SWITCHBOARD_PG_BIN").map(PathBuf::from) {
        return has(&dir).then_some(dir);
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .filter_map(|d| std::fs::canonicalize(d.join("initdb")).ok())
        .filter_map(|initdb| initdb.parent().map(Path::to_path_buf))
        .find(|d| has(d));
    if on_path.is_some() {
        return on_path;
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|d| has(d))
        .collect();
    versions.sort();
    versions.pop()
}

/// Fields drop in order: the server stops before its directory goes.
struct Cluster {
    _server: Server,
    dir: tempfile::TempDir,
    port: u16,
}

impl Cluster {
    fn start(bin: &Path) -> Cluster {
        let dir = tempfile::Builder::new()
            .prefix("switchboard-pg-")
            .tempdir()
            .unwrap_or_else(|e| panic!("creating the cluster directory: {e}"));
        let as_root = is_root();
        if as_root {
            run(Command::new("chown").arg("postgres:").arg(dir.path()));
        }
        let data = dir.path().join("data");
        // A copy of the template (owner and modes kept) is a fresh cluster, and much cheaper
        // than running initdb in every test process.
        run(Command::new("cp")
            .arg("-a")
            .arg(template(bin, as_root))
            .arg(&data));
        // A port picked free can be taken before the server binds it: try a few.
        for _ in 0..5 {
            let port = free_port();
            let mut command = as_postgres(as_root, &bin.join("postgres"));
            command
                .arg("-D")
                .arg(&data)
                .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-k"])
                .arg(dir.path())
                // Throwaway data: no fsync, no crash safety.
                .args(["-c", "fsync=off", "-c", "full_page_writes=off"])
                .args(["-c", "synchronous_commit=off", "-c", "max_connections=200"])
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            let server = Server::spawn(command);
            if server.wait_ready(bin, port) {
                return Cluster {
                    _server: server,
                    dir,
                    port,
                };
            }
        }
        panic!("the test cluster did not start on any of five free ports")
    }

    fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }
}

/// The server process, held by a thread of its own: the parent-death signal follows the thread
/// that spawned the process, so that thread lives exactly as long as the server should.
struct Server {
    stop: Option<mpsc::Sender<()>>,
    exited: Arc<AtomicBool>,
    holder: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    fn spawn(mut command: Command) -> Server {
        let (stop, stopped) = mpsc::channel::<()>();
        let (started_tx, started) = mpsc::channel();
        let exited = Arc::new(AtomicBool::new(false));
        let flag = exited.clone();
        let holder = std::thread::spawn(move || {
            let mut child = match command.spawn() {
                Ok(child) => child,
                Err(e) => {
                    let _ = started_tx.send(Err(e));
                    return;
                }
            };
            let _ = started_tx.send(Ok(()));
            loop {
                match stopped.recv_timeout(Duration::from_millis(50)) {
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        if !matches!(child.try_wait(), Ok(None)) {
                            flag.store(true, Ordering::SeqCst);
                            return;
                        }
                    }
                    // Immediate shutdown (SIGQUIT): the data is thrown away anyway.
                    _ => {
                        let _ = Command::new("kill")
                            .args(["-QUIT", &child.id().to_string()])
                            .status();
                        let _ = child.wait();
                        flag.store(true, Ordering::SeqCst);
                        return;
                    }
                }
            }
        });
        match started.recv() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => panic!("starting postgres: {e}"),
            Err(_) => panic!("starting postgres: the holder thread ended"),
        }
        Server {
            stop: Some(stop),
            exited,
            holder: Some(holder),
        }
    }

    /// Polls `pg_isready` (bounded) until the server accepts connections or exits.
    fn wait_ready(&self, bin: &Path, port: u16) -> bool {
        let deadline = Instant::now() + READY_WITHIN;
        while Instant::now() < deadline && !self.exited.load(Ordering::SeqCst) {
            let ready = Command::new(bin.join("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(holder) = self.holder.take() {
            let _ = holder.join();
        }
    }
}

/// An initdb'd data directory kept in the temporary directory, made once per PostgreSQL
/// installation (under a file lock, so parallel test processes wait for the first) and only
/// ever copied: no server runs on it.
fn template(bin: &Path, as_root: bool) -> PathBuf {
    let name: String = bin
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let base = std::env::temp_dir().join(format!("switchboard-pg-template{name}"));
    let lock = std::fs::File::create(base.with_extension("lock"))
        .unwrap_or_else(|e| panic!("creating the template lock: {e}"));
    lock.lock()
        .unwrap_or_else(|e| panic!("locking the template: {e}"));
    let data = base.join("data");
    if !data.join("PG_VERSION").is_file() {
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap_or_else(|e| panic!("creating the template: {e}"));
        if as_root {
            run(Command::new("chown").arg("postgres:").arg(&base));
        }
        // Made beside and renamed: an interrupted initdb leaves no half template.
        let partial = base.join("partial");
        let mut initdb = as_postgres(as_root, &bin.join("initdb"));
        initdb
            .arg("-D")
            .arg(&partial)
            .args(["-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C"])
            .args(["--no-sync", "--no-instructions"]);
        run(&mut initdb);
        std::fs::rename(&partial, &data).unwrap_or_else(|e| panic!("finishing the template: {e}"));
    }
    data
}

/// `program` as the `postgres` user when the test runs as root, with SIGQUIT when this
/// process dies (`setpriv` execs the program, so the signal reaches the server itself).
fn as_postgres(as_root: bool, program: &Path) -> Command {
    let mut c = Command::new("setpriv");
    if as_root {
        c.args(["--reuid=postgres", "--regid=postgres", "--init-groups"]);
    }
    c.args(["--pdeathsig", "QUIT", "--"]).arg(program);
    c
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or_else(|e| panic!("finding a free port: {e}"))
}

fn run(c: &mut Command) {
    let out = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap_or_else(|e| panic!("running {c:?}: {e}"));
    assert!(
        out.status.success(),
        "{c:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
