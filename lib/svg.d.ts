// Types of pictures of the screen (lib/svg.js): `screenshot()` of a
// PtySession or a ScreenModel.

/** Options of `screenshot()`. */
export interface ScreenshotOptions {
  /** The picture's format; SVG is the one there is. @default 'svg' */
  format?: 'svg'
}
