/**
 * Private data for CM messages: per-message transport limits and a two-byte length/version
 * header, validated on the caller's thread before anything reaches native code.
 */
package org.rdmacm4j.cm.statemachine.privatedata;
