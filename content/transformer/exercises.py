"""课堂动手与小测用的数据：2×2 的 Q、K，以及几种典型错误会算出的"答案"。"""

import numpy as np

from attention import softmax

EXERCISE_Q = np.array([[1.0, 2.0], [0.0, 1.0]])
EXERCISE_K = np.array([[1.0, 0.0], [1.0, 1.0]])


def exercise_weights(Q: np.ndarray, K: np.ndarray) -> np.ndarray:
    """正确做法：softmax(Q Kᵀ / √d_k)，对每一行（每个 query）归一化。"""
    return softmax(Q @ K.T / np.sqrt(Q.shape[-1]), axis=-1)


def typical_mistakes(Q: np.ndarray, K: np.ndarray) -> dict[str, np.ndarray]:
    """学生最常犯的三种错误各自会得到的权重矩阵。"""
    d_k = Q.shape[-1]
    return {
        "忘了除以 √d_k": softmax(Q @ K.T, axis=-1),
        "softmax 沿错了轴（按列归一化）": softmax(Q @ K.T / np.sqrt(d_k), axis=0),
        "忘了转置 K": softmax(Q @ K / np.sqrt(d_k), axis=-1),
    }


def row_text(row: np.ndarray, digits: int = 3) -> str:
    """一行权重写成 [0.196, 0.804] 的样子，供选择题的选项使用。"""
    return "[" + ", ".join(f"{x:.{digits}f}" for x in row) + "]"
