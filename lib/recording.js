// Recordings: reading the asciicast v2 files that `record` writes (and that
// asciinema writes), and replaying one into a ScreenModel to see the screen
// it ends on, or the screen at any moment of it.
'use strict'

const { readFileSync } = require('node:fs')
const { ScreenModel } = require('./screen-model.js')
const { codedError, describe, invalidArg, thrownText } = require('./errors.js')
const { own } = require('./args.js')

/**
 * Parses an asciicast v2 file: `{ header, events }`, each event
 * `[seconds, kind, data]`. ERR_INVALID_ARG naming the line when the file is
 * not one.
 */
function readRecording(path) {
  if (typeof path !== 'string' || path === '') {
    throw invalidArg(`readRecording() takes the path of an asciicast v2 file, got ${describe(path)}`)
  }
  let text
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw codedError('ERR_INVALID_ARG', `cannot read the recording ${JSON.stringify(path)}: ${err.message}`)
  }
  return parseRecording(text, path)
}

/** Parses the text of an asciicast v2 recording (see `readRecording`). */
function parseRecording(text, name = 'the recording') {
  const lines = text.split('\n')
  const bad = (line, why) => invalidArg(`${name} is not an asciicast v2 recording: line ${line}: ${why}`)
  let header
  try {
    header = JSON.parse(lines[0] ?? '')
  } catch {
    throw bad(1, 'the header is not JSON')
  }
  if (header === null || typeof header !== 'object' || header.version !== 2) {
    throw bad(1, `the header must be an object with "version": 2`)
  }
  if (!Number.isInteger(header.width) || !Number.isInteger(header.height)) {
    throw bad(1, 'the header needs integer "width" and "height"')
  }
  const events = []
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].trim() === '') continue
    let event
    try {
      event = JSON.parse(lines[i])
    } catch {
      throw bad(i + 1, 'not JSON')
    }
    if (!Array.isArray(event) || typeof event[0] !== 'number' || typeof event[1] !== 'string' || typeof event[2] !== 'string') {
      throw bad(i + 1, 'an event must be [seconds, kind, data]')
    }
    events.push(event)
  }
  return { header, events }
}

/**
 * Feeds a recording (a path, or what `readRecording` returned) into a new
 * `ScreenModel` of the recorded size: output events are written, resizes
 * applied, input ignored (the program's answer to it is in the output). With
 * `until` (seconds), stops after the last event at or before it. Returns the
 * model; `model.screen()` is the screen the recording shows then.
 */
function replay(recording, options) {
  const { header, events } = typeof recording === 'string' ? readRecording(recording) : checked(recording)
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options))) {
    throw invalidArg(`replay() options must be an object such as { until: 1.5 }, got ${describe(options)}`)
  }
  const { until = Infinity, ...rest } = own(options, 'options') || {}
  const extra = Object.keys(rest)
  if (extra.length > 0) throw invalidArg(`unknown option options.${extra[0]}; known options: until`)
  if (typeof until !== 'number' || Number.isNaN(until)) {
    throw invalidArg(`options.until must be a number of seconds, got ${describe(until)}`)
  }
  const model = new ScreenModel({ cols: header.width, rows: header.height })
  for (const [at, kind, data] of events) {
    if (at > until) break
    if (kind === 'o') {
      model.write(data)
    } else if (kind === 'r') {
      const size = /^(\d+)x(\d+)$/.exec(data)
      if (size === null) throw invalidArg(`a resize event must be "COLSxROWS", got ${describe(data)}`)
      model.resize(Number(size[1]), Number(size[2]))
    }
  }
  return model
}

/**
 * A recording object passed to `replay`, copied and checked as
 * `parseRecording` checks a file (a getter or proxy that throws is
 * ERR_INVALID_ARG too).
 */
function checked(recording) {
  const what = `replay() takes a recording's path or a readRecording() result`
  if (recording === null || typeof recording !== 'object') throw invalidArg(`${what}, got ${describe(recording)}`)
  let text
  try {
    text = [JSON.stringify(recording.header), ...Array.from(recording.events, (e) => JSON.stringify(Array.from(e)))].join('\n')
  } catch (err) {
    throw invalidArg(`${what}; this one could not be read: ${thrownText(err)}`)
  }
  return parseRecording(text, 'the recording passed to replay()')
}

module.exports = { readRecording, parseRecording, replay }
