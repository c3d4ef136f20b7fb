package org.rdmacm4j.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/**
 * Connections per second against the number of connections, one line per implementation
 * (median of the repetitions, whiskers from min to max), both axes logarithmic, drawn with
 * java.awt into a PNG (headless).
 */
final class ConnectRatePlot {
    private static final int W = 960, H = 600, LEFT = 100, RIGHT = 270, TOP = 70, BOTTOM = 80;

    /** One line of the plot: a label, a colour, and one point per N (null where missing). */
    record Series(String label, Color color, boolean dashed, List<BenchResults.Summary> points) { }

    private ConnectRatePlot() { }

    static void write(Path png, String title, String subtitle, List<Integer> ns, List<Series> series)
            throws IOException {
        BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, W, H);

        double yMin = Double.MAX_VALUE, yMax = 0;
        for (Series s : series) {
            for (BenchResults.Summary p : s.points()) {
                if (p != null) {
                    yMin = Math.min(yMin, p.min());
                    yMax = Math.max(yMax, p.max());
                }
            }
        }
        if (yMax == 0) {
            yMin = 1;
            yMax = 10;
        }
        double lo = Math.floor(Math.log10(Math.max(yMin, 1e-3))), hi = Math.ceil(Math.log10(yMax));
        if (hi <= lo) {
            hi = lo + 1;
        }
        double xLo = Math.log10(ns.getFirst()) - 0.15, xHi = Math.log10(ns.getLast()) + 0.15;
        int pw = W - LEFT - RIGHT, ph = H - TOP - BOTTOM;

        g.setColor(Color.BLACK);
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
        g.drawString(title, LEFT, 30);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        g.drawString(subtitle, LEFT, 52);

        // grid and y labels: decades, with 2 and 5 between them
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (double d = lo; d <= hi; d++) {
            for (int m : new int[] {1, 2, 5}) {
                double v = Math.pow(10, d) * m;
                if (Math.log10(v) > hi + 1e-9) {
                    break;
                }
                int y = TOP + ph - (int) Math.round((Math.log10(v) - lo) / (hi - lo) * ph);
                g.setColor(m == 1 ? new Color(200, 200, 200) : new Color(235, 235, 235));
                g.drawLine(LEFT, y, LEFT + pw, y);
                g.setColor(Color.DARK_GRAY);
                String label = v >= 1 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.2g", v);
                g.drawString(label, LEFT - 8 - g.getFontMetrics().stringWidth(label), y + 4);
            }
        }
        for (int n : ns) {
            int x = x(n, xLo, xHi, pw);
            g.setColor(new Color(220, 220, 220));
            g.drawLine(x, TOP, x, TOP + ph);
            g.setColor(Color.DARK_GRAY);
            String label = String.format(Locale.ROOT, "%,d", n);
            g.drawString(label, x - g.getFontMetrics().stringWidth(label) / 2, TOP + ph + 18);
        }
        g.setColor(Color.BLACK);
        g.drawRect(LEFT, TOP, pw, ph);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 14));
        String xl = "N = connections set up at once (log scale)";
        g.drawString(xl, LEFT + pw / 2 - g.getFontMetrics().stringWidth(xl) / 2, H - 30);
        var saved = g.getTransform();
        g.rotate(-Math.PI / 2);
        String yl = "connections/s, higher is better (log scale)";
        g.drawString(yl, -(TOP + ph / 2) - g.getFontMetrics().stringWidth(yl) / 2, 30);
        g.setTransform(saved);

        int legendY = TOP + 10;
        for (Series s : series) {
            g.setColor(s.color());
            g.setStroke(s.dashed() ? new BasicStroke(2.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f,
                    new float[] {8f, 6f}, 0f) : new BasicStroke(2.5f));
            int px = -1, py = -1;
            for (int i = 0; i < ns.size(); i++) {
                BenchResults.Summary p = s.points().get(i);
                if (p == null) {
                    px = -1;
                    continue;
                }
                int x = x(ns.get(i), xLo, xHi, pw);
                int y = y(p.median(), lo, hi, ph);
                if (px >= 0) {
                    g.drawLine(px, py, x, y);
                }
                px = x;
                py = y;
            }
            g.setStroke(new BasicStroke(1.5f));
            for (int i = 0; i < ns.size(); i++) {
                BenchResults.Summary p = s.points().get(i);
                if (p != null) {
                    int x = x(ns.get(i), xLo, xHi, pw);
                    g.drawLine(x, y(p.min(), lo, hi, ph), x, y(p.max(), lo, hi, ph));
                    g.drawLine(x - 5, y(p.min(), lo, hi, ph), x + 5, y(p.min(), lo, hi, ph));
                    g.drawLine(x - 5, y(p.max(), lo, hi, ph), x + 5, y(p.max(), lo, hi, ph));
                    g.fillOval(x - 5, y(p.median(), lo, hi, ph) - 5, 10, 10);
                }
            }
            g.setStroke(s.dashed() ? new BasicStroke(2.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 1f,
                    new float[] {8f, 6f}, 0f) : new BasicStroke(2.5f));
            g.drawLine(LEFT + pw + 15, legendY, LEFT + pw + 45, legendY);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
            int line = 0;
            for (String part : s.label().split("\n")) {
                g.drawString(part, LEFT + pw + 52, legendY + 5 + line * 16);
                line++;
            }
            legendY += 16 * line + 14;
        }
        g.setColor(Color.DARK_GRAY);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        g.drawString("dot: median; whiskers: min to max", LEFT + pw + 15, legendY + 6);
        g.dispose();
        ImageIO.write(img, "png", png.toFile());
    }

    private static int x(int n, double lo, double hi, int pw) {
        return LEFT + (int) Math.round((Math.log10(n) - lo) / (hi - lo) * pw);
    }

    private static int y(double v, double lo, double hi, int ph) {
        return TOP + ph - (int) Math.round((Math.log10(Math.max(v, 1e-9)) - lo) / (hi - lo) * ph);
    }
}
