// 1000_A. Codehorses T-shirts (Main: the language table's class name)
import java.util.HashMap;
import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int n = in.nextInt();
        HashMap<String, Integer> have = new HashMap<>();
        for (int i = 0; i < n; i++)
            have.merge(in.next(), 1, Integer::sum);
        int changes = 0;
        for (int i = 0; i < n; i++) {
            String s = in.next();
            int k = have.getOrDefault(s, 0);
            if (k > 0)
                have.put(s, k - 1);
            else
                changes++;
        }
        System.out.println(changes);
    }
}
