//! The symbolic-link swap race (issue 15): a thread swaps names inside the
//! root between real entries and links to the outside while the handlers run
//! thousands of times; nothing outside may be read, written, moved into or
//! created. With checks by name and opens by name, this lost dozens of times
//! in 20,000 calls.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::confinement::Confinement;
use crate::files;
use crate::limits::Limits;
use crate::tools::*;

const SECRET: &str = "outside secret\n";

struct Setup {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    roots: Confinement,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("root");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(outside.join("secret.txt"), SECRET).expect("write");
    let roots = Confinement::new(std::slice::from_ref(&root)).expect("roots");
    Setup {
        _dir: dir,
        root,
        outside,
        roots,
    }
}

/// Swaps `name` between what `real` makes and a link to `target` until
/// stopped; rename() makes each swap atomic, so the name always exists.
fn swapper(
    root: &Path,
    name: &str,
    target: PathBuf,
    real: fn(&Path),
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<usize> {
    let path = root.join(name);
    let staging_real = root.join(format!(".{name}.real"));
    let staging_link = root.join(format!(".{name}.link"));
    std::thread::spawn(move || {
        let mut swaps = 0;
        while !stop.load(Ordering::Relaxed) {
            let _ = std::fs::remove_file(&staging_link);
            let _ = std::os::unix::fs::symlink(&target, &staging_link);
            let _ = std::fs::rename(&staging_link, &path);
            let _ = std::fs::remove_dir_all(&staging_real);
            let _ = std::fs::remove_file(&staging_real);
            real(&staging_real);
            // A directory cannot replace a link by rename: remove the link first.
            let _ = std::fs::remove_file(&path);
            let _ = std::fs::rename(&staging_real, &path);
            swaps += 1;
        }
        swaps
    })
}

fn outside_listing(outside: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(outside)
        .expect("read outside")
        .map(|e| {
            let e = e.expect("entry");
            let content = std::fs::read_to_string(e.path()).unwrap_or_default();
            (e.file_name().to_string_lossy().into_owned(), content)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn swapped_file_links_never_read_or_write_outside() {
    let s = setup();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(
        &s.root,
        "swap.txt",
        s.outside.join("secret.txt"),
        |p| std::fs::write(p, "inside\n").expect("write"),
        stop.clone(),
    );
    let before = outside_listing(&s.outside);
    let limits = Limits::default();
    let (mut reads_inside, mut writes_done) = (0, 0);
    for i in 0..6_000 {
        let read = files::read_file(
            &s.roots,
            limits,
            ReadFileArgs {
                path: "swap.txt".into(),
                start_line: None,
                end_line: None,
                head: None,
                tail: None,
            },
        );
        if let Ok(out) = read {
            let text = out.text_content();
            assert_ne!(text, SECRET, "read outside content on call {i}");
            reads_inside += 1;
        }
        let write = files::write_file(
            &s.roots,
            WriteFileArgs {
                path: "swap.txt".into(),
                content: format!("overwritten {i}\n"),
                create_dirs: false,
            },
            crate::atomic::Target::Either,
        );
        writes_done += usize::from(write.is_ok());
        let replace = files::replace_in_file(
            &s.roots,
            limits,
            ReplaceInFileArgs {
                path: "swap.txt".into(),
                old_text: "secret".into(),
                new_text: "REPLACED".into(),
                expected_count: 1,
            },
        );
        assert!(replace.is_err(), "the replaced text exists only outside");
        let edit = crate::edit::apply_to_file(
            &s.roots,
            limits,
            &EditFileArgs {
                path: "swap.txt".into(),
                old_texts: vec!["outside secret".into()],
                new_texts: vec!["EDITED".into()],
                dry_run: false,
            },
            None,
        );
        assert!(edit.is_err(), "the edited text exists only outside");
        let media = files::read_media_file(
            &s.roots,
            limits,
            ReadMediaFileArgs {
                path: "swap.txt".into(),
            },
        );
        if let Ok(out) = media {
            assert!(
                !format!("{:?}", out.blocks()).contains("b3V0c2lkZSBzZWNyZXQK"),
                "read outside content as media on call {i}"
            );
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swaps.join().expect("swapper");
    assert_eq!(
        outside_listing(&s.outside),
        before,
        "nothing changed outside"
    );
    // The race was really run: both outcomes happened many times.
    assert!(swaps > 100, "only {swaps} swaps");
    assert!(
        reads_inside > 100 && reads_inside < 6_000,
        "{reads_inside} reads succeeded"
    );
    assert!(writes_done > 100, "{writes_done} writes succeeded");
}

#[test]
fn swapped_directory_links_never_move_or_create_outside() {
    let s = setup();
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(
        &s.root,
        "dir",
        s.outside.clone(),
        |p| std::fs::create_dir(p).expect("mkdir"),
        stop.clone(),
    );
    let before = outside_listing(&s.outside);
    let (mut made, mut moved, mut written) = (0, 0, 0);
    for i in 0..3_000 {
        let mkdir = files::create_directory(
            &s.roots,
            CreateDirectoryArgs {
                path: format!("dir/made{i}/deeper"),
            },
        );
        made += usize::from(mkdir.is_ok());
        let name = format!("file{i}.txt");
        std::fs::write(s.root.join(&name), "moved\n").expect("write");
        let mv = files::move_path(
            &s.roots,
            MovePathArgs {
                source: name,
                destination: format!("dir/moved{i}.txt"),
                overwrite: false,
            },
        );
        moved += usize::from(mv.is_ok());
        let write = files::write_file(
            &s.roots,
            WriteFileArgs {
                path: format!("dir/new{i}/written.txt"),
                content: "x".into(),
                create_dirs: true,
            },
            crate::atomic::Target::Either,
        );
        written += usize::from(write.is_ok());
        // Moving out of the swapped directory must not take outside files.
        let _ = files::move_path(
            &s.roots,
            MovePathArgs {
                source: "dir/secret.txt".into(),
                destination: format!("stolen{i}.txt"),
                overwrite: false,
            },
        );
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swaps.join().expect("swapper");
    assert_eq!(
        outside_listing(&s.outside),
        before,
        "nothing changed outside"
    );
    let stolen = std::fs::read_dir(&s.root)
        .expect("list root")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("stolen"))
        .count();
    assert_eq!(stolen, 0, "an outside file was moved in");
    assert!(swaps > 50, "only {swaps} swaps");
    assert!(
        made > 50 && moved > 50 && written > 50,
        "{made} {moved} {written}"
    );
}

#[test]
fn swapped_links_never_show_outside_contents_or_names_in_search_and_listings() {
    let s = setup();
    std::fs::create_dir(s.root.join("sub")).expect("mkdir");
    let stop = Arc::new(AtomicBool::new(false));
    let file_swaps = swapper(
        &s.root,
        "swap.txt",
        s.outside.join("secret.txt"),
        |p| std::fs::write(p, "inside\n").expect("write"),
        stop.clone(),
    );
    let dir_swaps = swapper(
        &s.root.join("sub"),
        "dir",
        s.outside.clone(),
        |p| std::fs::create_dir(p).expect("mkdir"),
        stop.clone(),
    );
    let limits = Limits::default();
    for i in 0..800 {
        let found = crate::search::search_files(
            &s.roots,
            limits,
            SearchFilesArgs {
                pattern: "secret".into(),
                path: ".".into(),
                glob: None,
                case: SearchFilesCase::Sensitive,
                max_results: 100,
                exclude_patterns: Vec::new(),
            },
        )
        .expect("search");
        assert!(found.matches.is_empty(), "call {i}: {:?}", found.matches);
        let found = crate::search::find_files(
            &s.roots,
            limits,
            FindFilesArgs {
                glob: "**/secret.txt".into(),
                path: ".".into(),
                max_results: 100,
                exclude_patterns: Vec::new(),
            },
        )
        .expect("find");
        assert!(found.files.is_empty(), "call {i}: {:?}", found.files);
        if let Ok(listed) = crate::listing::list_directory(
            &s.roots,
            limits,
            ListDirectoryArgs {
                path: "sub/dir".into(),
                depth: 2,
                hidden: true,
            },
        ) {
            assert!(
                !listed.entries.iter().any(|e| e.contains("secret")),
                "call {i}: {:?}",
                listed.entries
            );
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = file_swaps.join().expect("swapper") + dir_swaps.join().expect("swapper");
    assert!(swaps > 100, "only {swaps} swaps");
}
