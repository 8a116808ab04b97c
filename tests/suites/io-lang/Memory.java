import java.util.ArrayList;

public class Main {
    public static void main(String[] args) {
        ArrayList<long[]> keep = new ArrayList<>();
        for (;;)
            keep.add(new long[1 << 20]);
    }
}
