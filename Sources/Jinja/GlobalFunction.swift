/// The global functions of HF's environment: jinja2's defaults (`range`, `dict`,
/// `namespace`, `cycler`, `joiner`; `lipsum` is left out) plus transformers'
/// `raise_exception` and `strftime_now`.
enum GlobalFunction: String, CaseIterable {
    case range, dict, namespace, cycler, joiner
    case raiseException = "raise_exception"
    case strftimeNow = "strftime_now"
}
