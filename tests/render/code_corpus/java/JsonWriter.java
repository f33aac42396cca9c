/*
 * A streaming JSON writer in the style of gson's.
 */
package tinyjson.stream;

import java.io.Closeable;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;

/**
 * Writes a JSON value, one token at a time.
 *
 * @since 1.0
 */
public class JsonWriter implements Closeable {

  /** Where the writer is inside the document. */
  enum Scope {
    EMPTY_ARRAY('['),
    NONEMPTY_ARRAY('['),
    EMPTY_OBJECT('{');

    private final char open;

    Scope(char open) {
      this.open = open;
    }

    char open() {
      return open;
    }
  }

  /** Called for each name written, so a caller can log or rename. */
  @FunctionalInterface
  public interface NameListener {
    void onName(String name);

    default NameListener andThen(NameListener next) {
      return name -> {
        onName(name);
        next.onName(name);
      };
    }
  }

  private final Writer out;
  private final Deque<Scope> stack = new ArrayDeque<>();
  private String indent = "";

  public JsonWriter(Writer out) {
    this(out, "");
  }

  public JsonWriter(Writer out, String indent) {
    this.out = out;
    this.indent = indent;
  }

  public JsonWriter beginArray() throws IOException {
    return open(Scope.EMPTY_ARRAY, '[');
  }

  public JsonWriter value(String value) throws IOException {
    out.write('"' + value + '"');
    return this;
  }

  public JsonWriter value(long value) throws IOException {
    out.write(Long.toString(value));
    return this;
  }

  @Override
  public void close() throws IOException {
    out.close();
  }

  private JsonWriter open(Scope scope, char bracket) throws IOException {
    stack.push(scope);
    out.write(bracket);
    return this;
  }

  static Comparator<String> byLength() {
    return new Comparator<String>() {
      @Override
      public int compare(String a, String b) {
        return Integer.compare(a.length(), b.length());
      }
    };
  }

  /** A writer's options, immutable. */
  public record Options(boolean lenient, boolean htmlSafe) {
    public Options {
      if (lenient && htmlSafe) throw new IllegalArgumentException("pick one");
    }

    public static Options defaults() {
      return new Options(false, true);
    }
  }

  public @interface Since {
    double value();
  }
}
