"""课堂动手与小测用的数据：两组 2×3 的 Q、K（2 个词，d_k = 3），以及几种典型错误会算出的"答案"。

n = 2 ≠ d_k = 3：忘了转置 K 时 Q @ K 的形状对不上，会直接报错，而不是悄悄算出一个错的方阵。
"""

import numpy as np

from attention import softmax

# 第二部分「课堂动手」
EXERCISE_Q = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]])
EXERCISE_K = np.array([[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
# 第六部分小测：另一组数，答案不能从前面的幻灯片上抄
QUIZ_Q = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]])
QUIZ_K = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 2.0]])


def exercise_weights(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """正确做法：softmax(Q Kᵀ / √d_k)，对每一行（每个 query）归一化。"""
    return softmax(Q @ K.T / np.sqrt(Q.shape[-1]), axis=-1)


def typical_mistakes(Q: np.ndarray, K: np.ndarray) -> dict[str, np.ndarray]:
    """三种常见错误各自算出的权重矩阵；每一行仍是一个概率分布（和为 1），看上去都像答案。

    「忘了取指数」要求分数都是正数（否则算不出分布），用在分数全为正的题目上。
    """
    d_k = Q.shape[-1]
    scaled = Q @ K.T / np.sqrt(d_k)
    return {
        "忘了除以 √d_k": softmax(Q @ K.T, axis=-1),
        "除以 d_k 而不是 √d_k": softmax(Q @ K.T / d_k, axis=-1),
        "忘了取指数（分数直接按行归一化）": scaled / scaled.sum(axis=-1, keepdims=True),
    }


def column_softmax(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """另一种常见错误：softmax 沿列（对每个 key）做。它的一行一般不是概率分布（和 ≠ 1）。"""
    return softmax(Q @ K.T / np.sqrt(Q.shape[-1]), axis=0)


def missing_transpose_error(Q: np.ndarray, K: np.ndarray) -> str:
    """忘了转置 K 时 NumPy 给出的错误信息（n ≠ d_k 时形状对不上）。"""
    try:
        Q @ K
    except ValueError as error:
        return str(error)
    return ""


def row_text(row: np.ndarray, digits: int = 3) -> str:
    """一行权重写成 [0.196, 0.804] 的样子，供选择题的选项使用。"""
    return "[" + ", ".join(f"{x:.{digits}f}" for x in row) + "]"
