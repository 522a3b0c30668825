// HTTP stage (Management API): a function's source file as the text/plain body parser delivers it
// (functions/functionUploads.ts registers the parser; the handler contract types the body with it).
/** A function's source file as sent (text/plain): kept as bytes, never decoded and re-encoded. */
export class SourceUpload {
  constructor(readonly content: Buffer) {}
}
