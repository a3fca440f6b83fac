int main(){ return x; }
