/// <reference types="node" />
// Types of recordings (asciicast v2, as the `record` option writes them):
// readRecording and replay (lib/recording.js).

import type { ScreenModel } from './screen-model.js'

/** An asciicast v2 recording, as `readRecording` parses it. */
export interface Recording {
  /** The header: `version` 2, `width`, `height`, `timestamp`, `command`, `env`, ... */
  header: {
    /** The format's version: always 2. */
    version: 2
    /** Terminal width in columns when the recording started. */
    width: number
    /** Terminal height in rows when the recording started. */
    height: number
    /** The rest of the header as written (`timestamp`, `command`, `env`, ...). */
    [key: string]: unknown
  }
  /** `[seconds, kind, data]`: `'o'` output, `'i'` input, `'r'` a resize (`'COLSxROWS'`), others kept as they are. */
  events: [number, string, string][]
}

/** Reads an asciicast v2 file (the `record` option's, or asciinema's). `ERR_INVALID_ARG` naming the line when it is not one. */
export declare function readRecording(path: string): Recording

/**
 * Replays a recording (its path or a `readRecording` result) into a new `ScreenModel` of the
 * recorded size: output is written, resizes applied, input left out (its effect is in the output).
 * With `until` (seconds), stops after the last event at or before it. The model's `screen()` is
 * what the recorded session showed then.
 *
 * ```ts
 * const model = replay('vim.cast')
 * model.screen().text // the screen the session ended on
 * ```
 */
export declare function replay(recording: string | Recording, options?: { until?: number }): ScreenModel
