//! Input and function-result admission (the last rows of the §2.4 table): message images,
//! whitespace-only messages, and which function results each harness can apply.

use crate::support;

use support::{COLUMNS, Outcome, admit, every, outcome, reject_null};
use switchboard_execution::HarnessId;
use switchboard_harness::{
    FunctionOutput, InputPart, declaration, validate_function_result, validate_message_input,
};

const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAA=";
const JPEG: &str = "data:image/jpeg;base64,/9j/4AAQSkZJRgAB";

const MESSAGE_IMAGES: &str = "The harness does not support message images.";
const WHITESPACE: &str = "This Session's harness does not accept a message whose text is only whitespace. Include non-whitespace text or an image, or use a harness that supports whitespace-only text.";
const RESULTS: &str = "The harness does not support function results.";
const RESULT_IMAGES: &str = "The harness does not support function result images.";
const FAILED_IMAGES: &str = "The harness does not support images in a failed function result.";
const INLINE_ONLY: &str = "The harness supports only inline PNG or JPEG function result images.";

fn text(t: &str) -> InputPart {
    InputPart::InputText { text: t.into() }
}

fn image(url: &str) -> InputPart {
    InputPart::InputImage {
        image_url: url.into(),
    }
}

fn check_table<I>(rows: &[(&str, I, [Outcome; 3])], check: impl Fn(HarnessId, &I) -> Outcome) {
    let mut failures = Vec::new();
    for (case, input, expected) in rows {
        for (h, want) in COLUMNS.iter().zip(expected) {
            let got = check(*h, input);
            if &got != want {
                failures.push(format!(
                    "{case} [{}]: expected {want:?}, got {got:?}",
                    h.as_str()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn message_table() {
    let blank = || reject_null(WHITESPACE);
    let no_images = || reject_null(MESSAGE_IMAGES);
    let claude_sources = || {
        reject_null(
            "The harness takes message images as http(s) URLs or inline base64 data URLs of type png, jpeg, gif, webp.",
        )
    };
    let rows: Vec<(&str, Vec<InputPart>, [Outcome; 3])> = vec![
        ("text", vec![text("hello")], every(admit())),
        (
            "text with surrounding space",
            vec![text("  hi \n")],
            every(admit()),
        ),
        (
            "an image",
            vec![image(PNG)],
            [admit(), admit(), no_images()],
        ),
        (
            "an image by URL",
            vec![image("https://example.com/a.png")],
            [admit(), admit(), no_images()],
        ),
        (
            "an inline GIF",
            vec![image("data:image/gif;base64,R0lGODlh")],
            [admit(), admit(), no_images()],
        ),
        (
            "an inline BMP",
            vec![text("x"), image("data:image/bmp;base64,Qk0=")],
            [admit(), claude_sources(), no_images()],
        ),
        (
            "an inline image without a payload",
            vec![text("x"), image("data:image/png;base64,")],
            [admit(), claude_sources(), no_images()],
        ),
        (
            "a file URL",
            vec![text("x"), image("file:///etc/passwd")],
            [admit(), claude_sources(), no_images()],
        ),
        (
            "blank text and an image",
            vec![text(" "), image(PNG)],
            [admit(), admit(), no_images()],
        ),
        (
            "spaces, tabs and newlines",
            vec![text(" \t\r\n\u{b}\u{c}")],
            [admit(), blank(), blank()],
        ),
        ("empty text", vec![text("")], [admit(), blank(), blank()]),
        ("no parts", vec![], [admit(), blank(), blank()]),
        (
            "several blank parts",
            vec![text(" "), text("\n")],
            [admit(), blank(), blank()],
        ),
        (
            "U+0085 next line (Go)",
            vec![text("\u{85}")],
            [admit(), blank(), blank()],
        ),
        (
            "U+00A0 no-break space",
            vec![text("\u{a0}")],
            [admit(), blank(), blank()],
        ),
        (
            "U+FEFF byte order mark (ECMAScript)",
            vec![text("\u{feff}")],
            [admit(), blank(), blank()],
        ),
        (
            "U+2028 line separator",
            vec![text("\u{2028}")],
            [admit(), blank(), blank()],
        ),
        (
            "U+3000 ideographic space",
            vec![text("\u{3000} \u{2009}")],
            [admit(), blank(), blank()],
        ),
        (
            "U+200B zero width space is text",
            vec![text("\u{200b}")],
            every(admit()),
        ),
        (
            "one meaningful part among blanks",
            vec![text(" "), text("x")],
            every(admit()),
        ),
    ];
    check_table(&rows, |h, parts| {
        outcome(validate_message_input(declaration(h), parts))
    });
}

#[test]
fn function_result_table() {
    type Result_ = (bool, Option<FunctionOutput>);
    let parts = |p: Vec<InputPart>| Some(FunctionOutput::Parts(p));
    let no_images = || reject_null(RESULT_IMAGES);
    let rows: Vec<(&str, Result_, [Outcome; 3])> = vec![
        (
            "string output",
            (true, Some(FunctionOutput::Text("42".into()))),
            every(admit()),
        ),
        ("no output", (true, None), every(admit())),
        ("failed without output", (false, None), every(admit())),
        (
            "blank string output",
            (true, Some(FunctionOutput::Text(" ".into()))),
            every(admit()),
        ),
        (
            "text parts",
            (false, parts(vec![text("a"), text("b")])),
            every(admit()),
        ),
        (
            "inline PNG",
            (true, parts(vec![text("chart"), image(PNG)])),
            [admit(), admit(), no_images()],
        ),
        (
            "inline JPEG",
            (true, parts(vec![image(JPEG)])),
            [admit(), admit(), no_images()],
        ),
        (
            "failed with an inline image",
            (false, parts(vec![image(PNG)])),
            [admit(), reject_null(FAILED_IMAGES), no_images()],
        ),
        (
            "image by URL",
            (true, parts(vec![image("https://example.com/a.png")])),
            [admit(), reject_null(INLINE_ONLY), no_images()],
        ),
        (
            "failed with an image by URL",
            (false, parts(vec![image("https://example.com/a.png")])),
            [admit(), reject_null(FAILED_IMAGES), no_images()],
        ),
        (
            "inline GIF",
            (
                true,
                parts(vec![image("data:image/gif;base64,R0lGODlhAQABAAAAACw=")]),
            ),
            [admit(), reject_null(INLINE_ONLY), no_images()],
        ),
        (
            "PNG bytes declared as JPEG",
            (
                true,
                parts(vec![image(&PNG.replace("image/png", "image/jpeg"))]),
            ),
            [admit(), reject_null(INLINE_ONLY), no_images()],
        ),
        (
            "non-canonical base64",
            (true, parts(vec![image(&PNG.replace("AAA=", "AAB="))])),
            [admit(), reject_null(INLINE_ONLY), no_images()],
        ),
        (
            "unpadded base64",
            (true, parts(vec![image(PNG.trim_end_matches('='))])),
            [admit(), reject_null(INLINE_ONLY), no_images()],
        ),
        (
            "one good and one remote image",
            (
                true,
                parts(vec![image(PNG), image("https://example.com/a.png")]),
            ),
            [admit(), reject_null(INLINE_ONLY), no_images()],
        ),
    ];
    check_table(&rows, |h, (success, output)| {
        outcome(validate_function_result(
            declaration(h),
            *success,
            output.as_ref(),
        ))
    });
}

#[test]
fn a_harness_without_functions_takes_no_results() {
    let mut decl = declaration(HarnessId::Codex).clone();
    decl.functions.tools = false;
    assert_eq!(
        outcome(validate_function_result(&decl, true, None)),
        reject_null(RESULTS)
    );
}
