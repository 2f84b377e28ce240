// A refusal or failure the worker answers the app with: a code from
// bridge/protocol's error codes, the words an agent reads, and, for an
// element that changed, what it is now. Imports nothing.

export class Failure extends Error {
  constructor(code, message, now) {
    super(message);
    this.code = code;
    this.now = now; // a changed element: what it is now
  }
}

