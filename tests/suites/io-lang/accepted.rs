// 1000_A. Codehorses T-shirts
use std::collections::HashMap;
use std::io::Read;

fn main() {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).unwrap();
    let mut words = text.split_whitespace();
    let n: usize = words.next().unwrap().parse().unwrap();
    let mut have: HashMap<&str, i32> = HashMap::new();
    for _ in 0..n {
        *have.entry(words.next().unwrap()).or_insert(0) += 1;
    }
    let mut changes = 0;
    for _ in 0..n {
        let k = have.entry(words.next().unwrap()).or_insert(0);
        if *k > 0 {
            *k -= 1;
        } else {
            changes += 1;
        }
    }
    println!("{}", changes);
}
