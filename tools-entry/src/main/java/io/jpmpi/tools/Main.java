package io.jpmpi.tools;

/** Entry point of bin/jpmpi. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(JpmpiCommand.execute(Context.ofProcess(), args));
    }
}
