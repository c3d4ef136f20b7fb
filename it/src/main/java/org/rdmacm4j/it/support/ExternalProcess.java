package org.rdmacm4j.it.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An external command (rdma-core tools, {@code rdma}) run with a hard deadline. Output
 * (stdout and stderr merged) is read on a separate thread so a chatty process never blocks.
 * Past the deadline the process tree is killed and the result says so; nothing here waits
 * without a bound.
 */
public final class ExternalProcess implements AutoCloseable {
    private final List<String> command;
    private final Process process;
    private final CompletableFuture<String> output;

    private ExternalProcess(List<String> command) {
        this.command = List.copyOf(command);
        try {
            this.process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        InputStream in = process.getInputStream();
        this.output = CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "<output unreadable: " + e + ">";
            }
        }, runnable -> Thread.ofPlatform().daemon().name("output-" + command.getFirst()).start(runnable));
    }

    /** Starts {@code command} in the background; {@link #await} or {@link #close} it. */
    public static ExternalProcess start(String... command) {
        return new ExternalProcess(List.of(command));
    }

    /** Runs {@code command} to completion, or kills it at {@code deadline}. */
    public static Result run(Duration deadline, String... command) {
        try (ExternalProcess p = start(command)) {
            return p.await(deadline);
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits at most {@code deadline} for the process to exit; kills it if it does not. */
    public Result await(Duration deadline) {
        boolean exited;
        try {
            exited = process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exited = false;
        }
        if (!exited) {
            kill();
        }
        return new Result(command, exited ? process.exitValue() : -1, !exited, collectOutput());
    }

    private String collectOutput() {
        try {
            return output.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "<interrupted while reading output>";
        } catch (ExecutionException | TimeoutException e) {
            return "<output not available: " + e + ">";
        }
    }

    private void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The process id (for logs). */
    public long pid() {
        return process.pid();
    }

    /**
     * SIGKILL now (kill -9: no cleanup in the process; the kernel closes its files, which for
     * rdma_cm destroys its ids) and wait (bounded) until it is gone.
     */
    public void sigkill() {
        kill();
    }

    /** Kills the process if it still runs. Idempotent. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }

    /**
     * @param exitCode  the exit status, or -1 if it was killed at the deadline
     * @param timedOut  whether the deadline passed
     */
    public record Result(List<String> command, int exitCode, boolean timedOut, String output) {
        @Override
        public String toString() {
            return String.join(" ", command) + " -> " + (timedOut ? "KILLED at deadline" : "exit " + exitCode)
                    + "\n--- output ---\n" + output + "--------------";
        }
    }
}
